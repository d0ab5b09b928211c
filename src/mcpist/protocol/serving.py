"""How `mcpist serve` runs the app under uvicorn: forwarded headers, slow clients, redacted logs.

- Forwarded headers (`X-Forwarded-For`, `-Proto`) are believed only from `trusted_proxies` (none by
  default, where uvicorn would trust 127.0.0.1, so anything on the machine could pick its address).
- A client must finish a request's headers within `limits.header_timeout_s` and its body within
  `limits.body_timeout_s`, else its connection is closed; uvicorn alone waits forever for both.
- Secrets in query strings (`?access_token=`, an OAuth `code`, `state`...) never reach a log line.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from mcpist.config import Settings

__all__ = ["REDACTED_PARAMS", "RedactSecrets", "install_log_redaction", "redact", "timed_protocol", "uvicorn_config"]

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


_TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"


def timed_protocol(header_timeout_s: float, body_timeout_s: float, max_header_bytes: int) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request headers or body arrive too slowly,
    and refusing a request line and headers over `max_header_bytes` (h11 checks only incomplete ones)."""

    class TimedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _phase: str | None = None
        _head = b""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._watch(started=True)

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE and self._head_too_large(data):
                return
            super().data_received(data)
            self._watch(started=True)

        def _head_too_large(self, data: bytes) -> bool:
            head = self._head + data
            end = head.find(b"\r\n\r\n")
            if (end if end >= 0 else len(head)) > max_header_bytes:
                self._disarm()
                self.transport.write(_TOO_LARGE)
                self.transport.close()
                return True
            self._head = b"" if end >= 0 else head
            return False

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # until the next request's first byte, the keep-alive timeout watches the connection
            self._watch(started=False)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _watch(self, *, started: bool) -> None:
            state = self.conn.their_state
            phase = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
            if phase == "headers" and not started:
                phase = None
            if phase == self._phase:
                return
            self._disarm()
            self._phase = phase
            if phase is not None and not self.transport.is_closing():
                limit = header_timeout_s if phase == "headers" else body_timeout_s
                self._deadline = self.loop.call_later(limit, self._too_slow, phase, limit)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._phase = None

        def _too_slow(self, phase: str, limit: float) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                client = "%s:%d" % self.client if self.client else "a client"  # noqa: UP031
                logger.warning(
                    "closing the connection of %s: request %s not received within %g s", client, phase, limit
                )
                self.transport.close()

    return TimedH11Protocol


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
    config = uvicorn.Config(app, **{**options, **extra})
    install_log_redaction()
    return config
