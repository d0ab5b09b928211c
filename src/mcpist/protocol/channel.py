"""Progress and log notifications to the client that made a request (`ClientChannel` over the SDK).

Progress goes out only when the request carried a `progressToken`. Log lines go out at or above the
level the client chose: with `logging/setLevel` on a 2025-11-25 session (nothing before it asks), or
per request through `_meta` on 2026-07-28 (the SDK applies that filter). Server log records of the
module and upstream loggers emitted while a request runs are forwarded too; nothing here adds
headers, arguments or credentials to what those records already say.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import warnings
import weakref
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpist.modules.api import LOG_SENT_MARK, LogLevel

logger = logging.getLogger("mcpist.protocol")

FLUSH_S = 5.0
LEVELS: tuple[LogLevel, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
FORWARDED_LOGGERS = ("mcpist.modules", "mcpist.upstream")

_current: contextvars.ContextVar[RequestChannel | None] = contextvars.ContextVar("mcpist_channel", default=None)


def _level_of(record: logging.LogRecord) -> LogLevel:
    if record.levelno >= logging.CRITICAL:
        return "critical"
    if record.levelno >= logging.ERROR:
        return "error"
    if record.levelno >= logging.WARNING:
        return "warning"
    if record.levelno >= logging.INFO:
        return "info"
    return "debug"


class LogLevels:
    """The level each 2025-11-25 session asked for with `logging/setLevel` (gone with the session)."""

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, LogLevel] = weakref.WeakKeyDictionary()

    @staticmethod
    def _key(ctx: ServerRequestContext[Any, Any]) -> Any:
        # a ServerSession is made per request; the connection behind it lives as long as the MCP session
        return getattr(ctx.session, "_connection", ctx.session)

    def set(self, ctx: ServerRequestContext[Any, Any], level: LogLevel) -> None:
        self._levels[self._key(ctx)] = level

    def get(self, ctx: ServerRequestContext[Any, Any]) -> LogLevel | None:
        return self._levels.get(self._key(ctx))


class RequestChannel:
    """The `ClientChannel` of one request."""

    def __init__(self, ctx: ServerRequestContext[Any, Any], levels: LogLevels) -> None:
        self._ctx = ctx
        meta: dict[str, Any] = dict(ctx.meta or {})
        token = meta.get("progress_token", meta.get("progressToken"))
        self._progress_token: str | int | None = token if isinstance(token, str | int) else None
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        chosen = None if modern else levels.get(ctx)
        # on 2026-07-28 the SDK filters by the request's own opt-in; before, only after setLevel
        self._minimum: int | None = 0 if modern else (LEVELS.index(chosen) if chosen else None)
        self._pending: set[asyncio.Task[None]] = set()

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        if self._progress_token is None:
            return
        try:
            await self._ctx.session.send_progress_notification(
                self._progress_token, progress, total, message, related_request_id=str(self._ctx.request_id)
            )
        except Exception:  # a notification the client cannot take must not fail the call
            logger.debug("progress notification not delivered", exc_info=True)

    def wants(self, level: LogLevel) -> bool:
        return self._minimum is not None and LEVELS.index(level) >= self._minimum

    async def log(self, level: LogLevel, logger_name: str, data: Any) -> None:
        if not self.wants(level):
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the capability is deprecated on 2026-07-28 only
                await self._ctx.session.send_log_message(
                    level, data, logger=logger_name, related_request_id=self._ctx.request_id
                )
        except Exception:
            logger.debug("log notification not delivered", exc_info=True)

    def forward(self, record: logging.LogRecord) -> None:
        level = _level_of(record)
        if getattr(record, LOG_SENT_MARK, False) or not self.wants(level):
            return
        task = asyncio.get_running_loop().create_task(self.log(level, record.name, record.getMessage()))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def __aenter__(self) -> RequestChannel:
        self._token = _current.set(self)
        return self

    async def __aexit__(self, *exc: object) -> None:
        _current.reset(self._token)
        if self._pending:
            # lines logged during the call reach the client before its result does; a client that stopped
            # reading must not hold the answer back for long
            with anyio.move_on_after(FLUSH_S):
                await asyncio.gather(*self._pending, return_exceptions=True)


class ForwardToClient(logging.Handler):
    """Hands module and upstream log records to the channel of the request being served, if any."""

    def emit(self, record: logging.LogRecord) -> None:
        channel = _current.get()
        if channel is None:
            return
        with contextlib.suppress(RuntimeError):  # no running loop: a record from a worker thread
            channel.forward(record)


_handler = ForwardToClient(logging.DEBUG)


def install_forwarding() -> None:
    """Attach the forwarding handler once (idempotent)."""
    for name in FORWARDED_LOGGERS:
        target = logging.getLogger(name)
        if _handler not in target.handlers:
            target.addHandler(_handler)


def logging_level(params: types.SetLevelRequestParams) -> LogLevel:
    level: LogLevel = params.level
    return level
