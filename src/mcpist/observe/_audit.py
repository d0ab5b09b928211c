"""The audit of tool calls: who called which tool with which account, how it ended and how long it
took; never the arguments or the result.

A call only appends a row to a bounded in-memory buffer; a background task writes the buffer in
batches (every `interval_s`, or as soon as `batch` rows wait) and once more on shutdown. When the
buffer is full, a row is dropped and counted (`mcpist_audit_dropped_total{reason="full"}`): a slow
database must not slow tool calls down, nor grow memory without bound. Rows older than the retention
are deleted at start and hourly (by each process: the delete is idempotent).

Migration: `audit_0001` in `mcpist/storage/migrations/versions`, so every database has the table.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

import anyio
import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.types import TypeDecorator

from . import metrics

__all__ = ["AuditLog", "ToolCallRow", "count_tool_calls", "delete_older_than", "tool_calls"]

logger = logging.getLogger("mcpist.observe")

OK = "ok"
BATCH = 200
INTERVAL_S = 1.0
RETENTION_EVERY_S = 3_600.0


class _UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC on both backends (SQLite keeps no offset): `mcpist.storage.types.UTCDateTime`, which
    this layer sits below."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return _utc(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return _utc(value)


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


metadata = sa.MetaData()

# No foreign keys: the record outlives the user and token it names.
tool_calls = sa.Table(
    "tool_calls",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("at", _UTCDateTime, nullable=False, index=True),
    sa.Column("user_id", sa.String(36), nullable=True, index=True),
    sa.Column("token_id", sa.String(64), nullable=True),
    sa.Column("module", sa.String(64), nullable=False),
    sa.Column("tool", sa.String(128), nullable=False),
    sa.Column("account", sa.String(64), nullable=True),
    sa.Column("via", sa.String(16), nullable=False),
    sa.Column("outcome", sa.String(32), nullable=False),
    sa.Column("duration_ms", sa.Integer, nullable=False),
    sa.Column("request_id", sa.String(64), nullable=True),
)


class ToolCallRow(NamedTuple):
    """One row; the names are clipped to their columns (a caller's unknown tool name can be long). A tuple:
    made on every call, it is the cheapest record Python has."""

    at: datetime
    user_id: str | None
    token_id: str | None
    module: str
    tool: str
    account: str | None
    via: str
    outcome: str
    duration_ms: int
    request_id: str | None


class AuditLog:
    """The buffer and its writer; `running()` owns the background task."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        retention_days: int,
        capacity: int = 10_000,
        batch: int = BATCH,
        interval_s: float = INTERVAL_S,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.engine = engine
        self.retention = timedelta(days=retention_days)
        self.capacity = capacity
        self.batch = batch
        self.interval_s = interval_s
        self.clock = clock
        self._rows: deque[ToolCallRow] = deque()
        self._wake: anyio.Event | None = None
        self._stopping = False

    def record(self, row: ToolCallRow) -> None:
        """Queue a row; never blocks, never raises (a full buffer drops the row and counts it)."""
        if len(self._rows) >= self.capacity:
            metrics.audit_dropped.labels("full").inc()
            return
        self._rows.append(row)
        if len(self._rows) >= self.batch and self._wake is not None:
            self._wake.set()

    @property
    def pending(self) -> int:
        return len(self._rows)

    async def flush(self) -> int:
        """Write the rows queued now, `batch` at a time; returns how many were written.

        Rows that arrive meanwhile wait for the next flush: taking them at once would write a trickle of
        tiny batches whenever inserts are slower than calls arrive."""
        written = 0
        left = len(self._rows)
        while left:
            chunk = [self._rows.popleft() for _ in range(min(self.batch, left))]
            left -= len(chunk)
            try:
                async with self.engine.begin() as conn:
                    await conn.execute(tool_calls.insert(), [r._asdict() for r in chunk])
            except Exception as exc:
                # the calls happened and were answered: losing their record is logged and counted, not retried
                # for ever against a database that may stay down
                metrics.audit_dropped.labels("error").inc(len(chunk))
                logger.warning("could not write %d tool-call audit rows: %s", len(chunk), type(exc).__name__)
                continue
            written += len(chunk)
            metrics.audit_written.inc(len(chunk))
        return written

    async def expire(self) -> int:
        """Delete the rows older than the retention; returns how many."""
        return await delete_older_than(self.engine, self.clock() - self.retention)

    async def _run(self) -> None:
        next_expiry = time.monotonic() + RETENTION_EVERY_S
        while not self._stopping:
            self._wake = anyio.Event()
            if len(self._rows) < self.batch:
                with anyio.move_on_after(self.interval_s):
                    await self._wake.wait()
            await self.flush()
            if time.monotonic() >= next_expiry:
                next_expiry = time.monotonic() + RETENTION_EVERY_S
                await self._expire_logged()

    async def _expire_logged(self) -> None:
        try:
            removed = await self.expire()
        except Exception as exc:
            logger.warning("could not delete expired tool-call audit rows: %s", type(exc).__name__)
            return
        if removed:
            logger.info("deleted %d tool-call audit rows older than %d days", removed, self.retention.days)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[AuditLog]:
        """Expire old rows, write in the background while the block runs, flush what is left on exit.

        The writer is a plain task told to stop, not a task group's child cancelled: a task group would
        wrap the block's own exception in an ExceptionGroup, and a cancellation between taking rows off
        the buffer and inserting them would lose them.
        """
        await self._expire_logged()
        self._stopping = False
        writer = asyncio.get_running_loop().create_task(self._run())
        try:
            yield self
        finally:
            self._stopping = True
            if self._wake is not None:
                self._wake.set()
            with anyio.CancelScope(shield=True):
                (failed,) = await asyncio.gather(writer, return_exceptions=True)
                if isinstance(failed, Exception):
                    logger.error("the tool-call audit writer stopped: %s", type(failed).__name__)
                await self.flush()


async def delete_older_than(engine: AsyncEngine, cutoff: datetime) -> int:
    async with engine.begin() as conn:
        result = await conn.execute(tool_calls.delete().where(tool_calls.c.at < cutoff))
    return int(result.rowcount or 0)


async def count_tool_calls(engine: AsyncEngine, since: datetime, *, errors: bool = False) -> int:
    """Tool calls recorded since `since`; `errors`: only those that did not end `ok`."""
    query = sa.select(sa.func.count()).select_from(tool_calls).where(tool_calls.c.at >= since)
    if errors:
        query = query.where(tool_calls.c.outcome != OK)
    async with engine.connect() as conn:
        return int(await conn.scalar(query) or 0)
