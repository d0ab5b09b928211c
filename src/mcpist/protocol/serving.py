"""How `mcpist serve` runs the app under uvicorn: forwarded headers, slow clients, redacted logs.

- Forwarded headers (`X-Forwarded-For`, `-Proto`) are believed only from `trusted_proxies` (none by
  default, where uvicorn would trust 127.0.0.1, so anything on the machine could pick its address).
- A client must finish a request's headers within `limits.header_timeout_s` and its body within
  `limits.body_timeout_s`, else its connection is closed; uvicorn alone waits forever for both
  (`connections`: on httptools, the fast C parser, when installed; else on h11).
- The event loop is uvloop where installed.
- Secrets in query strings (`?access_token=`, an OAuth `code`, `state`...) never reach a log line.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Coroutine
from typing import Any

import uvicorn

from mcpist.config import Settings

from .connections import timed_protocol

__all__ = [
    "REDACTED_PARAMS",
    "RedactSecrets",
    "install_log_redaction",
    "redact",
    "run_server_loop",
    "timed_protocol",
    "uvicorn_config",
]

logger = logging.getLogger("mcpist.web")

REDACTED_PARAMS = (
    "access_token",
    "refresh_token",
    "id_token",
    "token",
    "code",
    "state",
    "client_secret",
    "password",
    "request",
    "t",  # the one-time token of a connect link or of the first-run set-up link
)
QUIET_LOGGERS = ("aiosqlite",)
"""Loggers whose DEBUG lines carry data (SQL parameters): kept at INFO or above."""
_SECRET_PARAM = re.compile(r"((?:^|[?&])(?:%s)=)[^&\s\"'#]*" % "|".join(REDACTED_PARAMS), re.IGNORECASE)  # noqa: UP031


def redact(text: str) -> str:
    """`text` with the value of each secret query parameter replaced by `[redacted]`."""
    return _SECRET_PARAM.sub(r"\1[redacted]", text)


class RedactSecrets(logging.Filter):
    """Redacts secret query parameters in a record's message and in each of its string arguments
    (kept apart: uvicorn's access formatter unpacks the arguments)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redact_arg(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _redact_arg(v) for k, v in record.args.items()}
        return True


def _redact_arg(value: Any) -> Any:
    if value is None or isinstance(value, int | float):
        return value  # what %d and %f need stays a number
    text = value if isinstance(value, str) else str(value)  # a URL object prints its query too
    redacted = redact(text)
    return value if redacted == text else redacted


def install_log_redaction() -> None:
    """Redact every handler the process logs through (root's and uvicorn's) and uvicorn's access log;
    keep `QUIET_LOGGERS` above DEBUG."""
    secrets = RedactSecrets()
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access")
    for name in names:
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, RedactSecrets) for f in handler.filters):
                handler.addFilter(secrets)
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactSecrets) for f in access.filters):
        access.addFilter(secrets)
    # at DEBUG, aiosqlite logs every statement with its parameters: pending authorizations, memos...
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLogger(name).getEffectiveLevel()))


def run_server_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run `main` (a server) on uvloop (libuv: a faster event loop) where it is installed, else on
    asyncio's own loop."""
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    try:
        import uvloop

        factory = uvloop.new_event_loop
    except ImportError:  # pragma: no cover - Windows, or a platform without the wheel
        pass
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main)


def uvicorn_config(app: Any, settings: Settings, **extra: Any) -> uvicorn.Config:
    """The uvicorn configuration `mcpist serve` runs `app` with (its logging redacted once built)."""
    limits = settings.limits
    proxies = list(settings.trusted_proxies)
    options: dict[str, Any] = {
        "log_level": settings.log_level.lower(),
        "lifespan": "on",
        "http": timed_protocol(limits.header_timeout_s, limits.body_timeout_s, limits.max_header_bytes),
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": proxies or [],
        "timeout_keep_alive": max(1, round(limits.keep_alive_s)),
        "h11_max_incomplete_event_size": limits.max_header_bytes,
        "server_header": False,
    }
    if settings.observe.log_format == "json":
        options["log_config"] = None  # uvicorn's records go through the root's JSON handler (redacted there)
    if settings.access_log != "all":
        options["access_log"] = False
        if settings.access_log == "summary":
            from .access_log import AccessSummary

            app = AccessSummary(app)
    config = uvicorn.Config(app, **{**options, **extra})
    install_log_redaction()
    return config
