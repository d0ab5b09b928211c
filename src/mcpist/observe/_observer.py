"""What a runtime observes of each tool call, and the start and stop of observation with the runtime."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager
from datetime import UTC, datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.errors import MCPistError

from . import _tracing, metrics
from ._audit import OK, AuditLog, ToolCallRow
from ._db import instrument_engine
from ._request_id import current_request_id

if TYPE_CHECKING:
    from mcpist.config import ObserveSettings

__all__ = ["CANCELLED", "Observer", "ToolCall", "observing"]

CANCELLED = "CANCELLED"
"""The outcome of a call cancelled before it ended (its client went away, its batch failed)."""


def _nothing_known(module: str, tool: str) -> bool:
    return False


class Observer:
    """Counts, audits and traces tool calls. `known(module, tool)` says whether a tool is installed:
    only then are its names metric labels (they are the caller's input otherwise)."""

    def __init__(
        self,
        *,
        audit: AuditLog | None = None,
        known: Callable[[str, str], bool] = _nothing_known,
    ) -> None:
        self.audit = audit
        self.known = known
        # prometheus_client's labels() validates and locks on every call: its children are kept here, by
        # label values that are bounded (installed tools x outcomes)
        self._children: dict[tuple[str, str, str], tuple[Any, Any]] = {}

    def tool_call(
        self, user_id: str | None, token_id: str | None, module: str, tool: str, via: str, account: str | None
    ) -> ToolCall:
        """Wrap one call in `with observer.tool_call(...) as call:`; set `call.account` once resolved."""
        return ToolCall(self, user_id, token_id, module, tool, via, account)

    def _finish(self, call: ToolCall, outcome: str, seconds: float) -> None:
        if metrics.enabled():
            known = self.known(call.module, call.tool)
            module, tool = (call.module, call.tool) if known else (metrics.UNKNOWN, metrics.UNKNOWN)
            key = (module, tool, outcome)
            children = self._children.get(key)
            if children is None:
                children = (metrics.tool_calls.labels(*key), metrics.tool_call_seconds.labels(module))
                self._children[key] = children
            children[0].inc()
            children[1].observe(seconds)
        if self.audit is not None:
            self.audit.record(
                ToolCallRow(
                    at=datetime.now(UTC),
                    user_id=call.user_id,
                    token_id=call.token_id,
                    module=call.module[:64],
                    tool=call.tool[:128],
                    account=call.account[:64] if call.account else None,
                    via=call.via[:16],
                    outcome=outcome,
                    duration_ms=round(seconds * 1000),
                    request_id=call.request_id,
                )
            )


def outcome_of(exc: BaseException | None) -> str:
    if exc is None:
        return OK
    if isinstance(exc, MCPistError):
        return exc.code
    if isinstance(exc, anyio.get_cancelled_exc_class()):
        return CANCELLED
    return "INTERNAL"


class ToolCall:
    """One call being observed (a context manager; cheap when tracing is off)."""

    __slots__ = (
        "_scope",
        "_span",
        "_started",
        "account",
        "module",
        "observer",
        "request_id",
        "token_id",
        "tool",
        "user_id",
        "via",
    )

    def __init__(
        self,
        observer: Observer,
        user_id: str | None,
        token_id: str | None,
        module: str,
        tool: str,
        via: str,
        account: str | None,
    ) -> None:
        self.observer = observer
        self.user_id = user_id
        self.token_id = token_id
        self.module = module
        self.tool = tool
        self.via = via
        self.account = account
        self.request_id = current_request_id()
        self._scope: AbstractContextManager[Any] | None = None
        self._span: Any = None
        self._started = 0.0

    def __enter__(self) -> ToolCall:
        if _tracing.active():
            # a span's name is an index in every tracing backend: only installed tools name one
            known = self.observer.known(self.module, self.tool)
            self._scope = _tracing.span(
                f"tool {self.module}.{self.tool}" if known else "tool unknown",
                {"mcpist.module": self.module[:64], "mcpist.tool": self.tool[:128], "mcpist.via": self.via},
            )
            self._span = self._scope.__enter__()
        self._started = time.perf_counter()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        seconds = time.perf_counter() - self._started
        outcome = outcome_of(exc)
        try:
            self.observer._finish(self, outcome, seconds)
        finally:
            if self._scope is not None:
                self._span.set_attribute("mcpist.outcome", outcome)
                if outcome != OK:
                    _tracing.fail(self._span, outcome)
                self._scope.__exit__(None, None, None)


@asynccontextmanager
async def observing(
    engine: AsyncEngine, settings: ObserveSettings, *, version: str, known: Callable[[str, str], bool]
) -> AsyncIterator[Observer]:
    """Apply `settings` for as long as a runtime runs: metrics on or off, the database timed, tracing,
    the audit writer.

    Raises:
        ConfigError: tracing is on and the `otel` extra is missing.
    """
    metrics.set_enabled(settings.metrics)
    metrics.build_info.labels(version).set(1)
    if settings.metrics or settings.otel:
        instrument_engine(engine)
    if settings.otel:
        _tracing.enable(settings, version)
    try:
        if settings.audit:
            audit = AuditLog(engine, retention_days=settings.audit_retention_days, capacity=settings.audit_buffer)
            async with audit.running():
                yield Observer(audit=audit, known=known)
        else:
            yield Observer(known=known)
    finally:
        if settings.otel:
            _tracing.disable()
