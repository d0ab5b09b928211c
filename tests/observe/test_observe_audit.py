"""The audit writer on SQLite and PostgreSQL: batches, the write on shutdown, a full buffer that drops
(and counts) instead of blocking, retention, and a migration that matches the table the code writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import anyio
import pytest
import sqlalchemy as sa
from observe_support import sample

from mcpist.observe import AuditLog, ToolCallRow, count_tool_calls, tool_calls
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def row(n: int, *, at: datetime = NOW, outcome: str = "ok") -> ToolCallRow:
    return ToolCallRow(
        at=at,
        user_id="u1",
        token_id=None,
        module="demo",
        tool=f"t{n}",
        account=None,
        via="call",
        outcome=outcome,
        duration_ms=n,
        request_id=None,
    )


async def written(audit: AuditLog) -> None:
    """Until the buffer is empty (the writer polls nothing: the test does, with a deadline)."""
    with anyio.fail_after(10):
        while audit.pending:  # noqa: ASYNC110 - the buffer has no event to wait on, by design
            await anyio.sleep(0.01)


async def stored(engine: sa.ext.asyncio.AsyncEngine) -> list[str]:
    async with engine.connect() as conn:
        return list((await conn.scalars(sa.select(tool_calls.c.tool).order_by(tool_calls.c.id))).all())


async def test_rows_are_written_in_batches_and_on_shutdown(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)
        # an interval no test waits for: only a full batch or the shutdown writes
        audit = AuditLog(engine, retention_days=30, batch=3, interval_s=3_600)
        async with audit.running():
            for n in range(3):
                audit.record(row(n))
            await written(audit)  # the full batch woke the writer
            audit.record(row(3))
            await anyio.sleep(0.05)
            assert audit.pending == 1  # short of a batch, it waits for the interval
            assert len(await stored(engine)) == 3
        assert await stored(engine) == ["t0", "t1", "t2", "t3"]
        assert audit.pending == 0
    finally:
        await engine.dispose()


async def test_a_full_buffer_drops_and_counts_without_waiting(sqlite_url: str) -> None:
    engine = create_engine(sqlite_url)
    try:
        await upgrade(engine)
        audit = AuditLog(engine, retention_days=30, capacity=5)
        before = sample("mcpist_audit_dropped_total", reason="full")
        for n in range(8):
            audit.record(row(n))  # no writer running: the buffer fills
        assert audit.pending == 5
        assert sample("mcpist_audit_dropped_total", reason="full") == before + 3
        assert await audit.flush() == 5
        assert await stored(engine) == ["t0", "t1", "t2", "t3", "t4"]
    finally:
        await engine.dispose()


async def test_a_database_that_refuses_a_batch_loses_it_counted(sqlite_url: str) -> None:
    engine = create_engine(sqlite_url)  # not migrated: no table
    try:
        audit = AuditLog(engine, retention_days=30)
        before = sample("mcpist_audit_dropped_total", reason="error")
        audit.record(row(1))
        assert await audit.flush() == 0
        assert audit.pending == 0
        assert sample("mcpist_audit_dropped_total", reason="error") == before + 1
    finally:
        await engine.dispose()


async def test_retention_deletes_old_rows_and_counts_see_today(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)
        audit = AuditLog(engine, retention_days=30, clock=lambda: NOW)
        audit.record(row(1, at=NOW - timedelta(days=31)))
        audit.record(row(2, at=NOW - timedelta(days=29)))
        audit.record(row(3, at=NOW - timedelta(hours=1), outcome="NOT_FOUND"))
        audit.record(row(4, at=NOW))
        await audit.flush()
        assert await audit.expire() == 1
        assert await stored(engine) == ["t2", "t3", "t4"]
        midnight = NOW.replace(hour=0)
        assert await count_tool_calls(engine, midnight) == 2
        assert await count_tool_calls(engine, midnight, errors=True) == 1
        # the writer expires at start too
        async with AuditLog(engine, retention_days=1, clock=lambda: NOW).running():
            pass
        assert await stored(engine) == ["t3", "t4"]
    finally:
        await engine.dispose()


async def test_the_migration_matches_the_table_the_code_writes(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)

        def inspect(sync: sa.Connection) -> tuple[dict[str, tuple[str, bool]], set[tuple[str, ...]]]:
            found = sa.inspect(sync)
            columns = {c["name"]: (str(c["type"]), c["nullable"]) for c in found.get_columns("tool_calls")}
            indexes = {tuple(i["column_names"]) for i in found.get_indexes("tool_calls")}
            return columns, indexes

        async with engine.connect() as conn:
            columns, indexes = await conn.run_sync(inspect)
        assert set(columns) == set(tool_calls.c.keys())
        for column in tool_calls.c:
            assert columns[column.name][1] == column.nullable, column.name
        assert {("at",), ("user_id",)} <= indexes
    finally:
        await engine.dispose()
