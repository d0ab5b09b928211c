"""Time each database statement (`mcpist_db_seconds`) and trace it, from SQLAlchemy's cursor events.

The events fire around the driver's execute, on the connection that runs it; the start time waits
on that connection's `info`, a stack so that nothing is lost if an event of a nested statement
interleaves. A failed statement pops its entry in `handle_error`.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, ExceptionContext
from sqlalchemy.ext.asyncio import AsyncEngine

from . import _tracing, metrics

__all__ = ["instrument_engine"]

_KEY = "mcpist_observe"
_OPERATIONS = {"SELECT": "select", "INSERT": "insert", "UPDATE": "update", "DELETE": "delete"}
_INSTRUMENTED = "mcpist_observe_instrumented"


def _operation(statement: str) -> str:
    return _OPERATIONS.get(statement[:6].upper(), "other")


def _before(conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
    span = None
    if _tracing.active():
        op = _operation(statement)
        # not the statement: a few are built with their values inline
        span = _tracing.start_span(f"db {op}", {"db.system.name": conn.dialect.name, "db.operation.name": op})
    conn.info.setdefault(_KEY, []).append((time.perf_counter(), span))


def _after(conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
    stack = conn.info.get(_KEY)
    if not stack:
        return
    started, span = stack.pop()
    if metrics.enabled():
        metrics.db_seconds.labels(_operation(statement)).observe(time.perf_counter() - started)
    if span is not None:
        span.end()


def _error(context: ExceptionContext) -> None:
    conn = context.connection
    stack = conn.info.get(_KEY) if conn is not None else None
    if not stack:
        return
    _, span = stack.pop()
    if span is not None:
        _tracing.fail(span, type(context.original_exception).__name__)
        span.end()


def instrument_engine(engine: AsyncEngine) -> None:
    """Listen on `engine` (once: a second call changes nothing)."""
    sync = engine.sync_engine
    if getattr(sync, _INSTRUMENTED, False):
        return
    setattr(sync, _INSTRUMENTED, True)
    event.listen(sync, "before_cursor_execute", _before)
    event.listen(sync, "after_cursor_execute", _after)
    event.listen(sync, "handle_error", _error)
