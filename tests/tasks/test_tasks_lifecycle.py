"""Tasks in the database: they expire after their ttl, outlive a restart, and any replica answers
for them; work whose process stopped or died is marked failed. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
import sqlalchemy as sa
from mcp.shared.exceptions import MCPError
from tasks_support import cancel_task, get_task, legacy, list_tasks, probe, start_task, task_result, world

from mcpist.runtime import Runtime
from mcpist.tasks import Owner, TaskRunner

pytestmark = pytest.mark.anyio

QUICK = {"module": "slow", "tool_name": "quick", "params": {"n": 5}}
HELD = {"module": "slow", "tool_name": "gate", "params": {"tag": "held"}}


def _runner(rt: Runtime) -> TaskRunner:
    assert rt.tasks is not None
    return rt.tasks


def _shift(rt: Runtime, seconds: float) -> None:
    store = _runner(rt).store
    real = store.clock

    def later() -> datetime:
        return real() + timedelta(seconds=seconds)

    store.clock = later


async def _rows(rt: Runtime) -> int:
    async with rt.engine.connect() as conn:
        return int((await conn.execute(sa.text("SELECT count(*) FROM tasks"))).scalar_one())


async def _missing(coro: Any) -> None:
    with pytest.raises(MCPError) as raised:
        await coro
    assert (raised.value.error.code, raised.value.error.message) == (
        types.INVALID_PARAMS,
        "Failed to retrieve task: Task not found",
    )


async def test_tasks_expire_after_their_ttl_and_expired_work_stops(tmp_path: Path) -> None:
    async with world(tmp_path, tasks={"lease_s": 3600}) as rt, legacy(rt) as client:
        done = await start_task(client, "call", QUICK, ttl=1_000)
        assert (await task_result(client, done["taskId"])).structured_content == {"n": 5, "square": 25}
        gate = probe()
        held = await start_task(client, "call", HELD, ttl=5_000)
        await gate.until(lambda: gate.started == ["held"])
        _shift(rt, 2)
        await _missing(get_task(client, done["taskId"]))
        await _missing(task_result(client, done["taskId"]))
        assert [t.task_id for t in (await list_tasks(client)).tasks] == [held["taskId"]]
        assert (await get_task(client, held["taskId"])).status == "working"
        _shift(rt, 4)
        await _runner(rt).sweep()
        with anyio.fail_after(10):
            await _runner(rt).join(held["taskId"])
        assert gate.stopped == ["held"]
        await _missing(get_task(client, held["taskId"]))
        assert await _rows(rt) == 0


async def test_a_result_survives_a_restart_and_unfinished_work_fails(tmp_path: Path, database_url: str) -> None:
    async with world(tmp_path, database_url) as rt, legacy(rt) as client:
        done = await start_task(client, "call", QUICK)
        first = await task_result(client, done["taskId"])
        gate = probe()
        held = await start_task(client, "call", HELD)
        await gate.until(lambda: gate.started == ["held"])
    assert gate.stopped == ["held"]  # the runtime stopped: so did its work
    async with world(tmp_path, database_url) as rt, legacy(rt) as client:
        assert (await get_task(client, done["taskId"])).status == "completed"
        again = await task_result(client, done["taskId"])
        assert again.structured_content == first.structured_content == {"n": 5, "square": 25}
        stopped = await get_task(client, held["taskId"])
        assert stopped.status == "failed"
        assert stopped.status_message == "the server stopped before this task finished"
        with pytest.raises(MCPError) as raised:
            await task_result(client, held["taskId"])
        assert raised.value.error.code == types.INTERNAL_ERROR
        assert raised.value.error.message == "the server stopped before this task finished"


async def test_a_task_of_a_process_that_died_fails_once_its_lease_runs_out(tmp_path: Path, database_url: str) -> None:
    async with world(tmp_path, database_url) as rt:
        owner = Owner(rt.owner.id, None)
        store = _runner(rt).store
        # what a process that died leaves behind: live rows whose lease it no longer renews
        expired = await store.create(owner, "batch", ttl_ms=3_600_000, poll_ms=50, runner="dead", lease_s=-1)
        current = await store.create(owner, "batch", ttl_ms=3_600_000, poll_ms=50, runner="dead", lease_s=20)
    async with world(tmp_path, database_url) as rt, legacy(rt) as client:
        failed = await get_task(client, expired.id)  # at start-up
        assert failed.status == "failed"
        assert failed.status_message is not None and failed.status_message.startswith(
            "the server process running this task stopped before it finished (its lease ran out at "
        )
        assert (await get_task(client, current.id)).status == "working"
        _shift(rt, 30)
        await _runner(rt).sweep()
        late = await get_task(client, current.id)
        assert late.status == "failed" and "its lease ran out" in (late.status_message or "")


async def test_any_replica_answers_for_a_task_another_one_runs(tmp_path: Path, database_url: str) -> None:
    async with (
        world(tmp_path / "a", database_url, tasks={"lease_s": 3600}) as a,
        world(tmp_path / "b", database_url, tasks={"lease_s": 3600}) as b,
        legacy(a) as on_a,
        legacy(b) as on_b,
    ):
        gate = probe()
        task = await start_task(on_a, "call", HELD)
        await gate.until(lambda: gate.started == ["held"])
        assert (await get_task(on_b, task["taskId"])).status == "working"
        results: list[types.CallToolResult] = []

        async def collect() -> None:
            results.append(await task_result(on_b, task["taskId"]))  # b polls the database

        async with anyio.create_task_group() as tg:
            tg.start_soon(collect)
            gate.release.set()
        assert results[0].structured_content == {"tag": "held"}

        gate = probe()
        other = await start_task(on_a, "call", HELD)
        await gate.until(lambda: gate.started == ["held"])
        assert (await cancel_task(on_b, other["taskId"])).status == "cancelled"
        await _runner(a).sweep()  # a notices at its next sweep and stops the work
        with anyio.fail_after(10):
            await _runner(a).join(other["taskId"])
        assert gate.stopped == ["held"]
