"""Several processes writing at once: no lost update, no corrupt row; other processes' writes are searchable."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
import sqlalchemy as sa

from conftest import Memory, start_memory
from mcpist.modules.memory.tables import entries

pytestmark = pytest.mark.anyio

WORKERS, SAVES, INCREMENTS = 3, 8, 5
HERE = Path(__file__).parent


async def test_parallel_processes_lose_no_update(memory: Memory, database_url: str) -> None:
    counter = await memory.call(
        "save", namespace="load", content="shared counter", metadata={"kind": "counter", "n": 0}
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    outputs: list[dict[str, int]] = []

    async def run(worker: int) -> None:
        args = [
            sys.executable,
            str(HERE / "memory_worker.py"),
            database_url,
            str(worker),
            str(SAVES),
            str(INCREMENTS),
            counter["memo_id"],
        ]
        done = await anyio.run_process(args, env=env, check=False)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        outputs.append(json.loads(done.stdout.decode().strip().splitlines()[-1]))

    with anyio.fail_after(240):
        async with anyio.create_task_group() as tg:
            for w in range(WORKERS):
                tg.start_soon(run, w)

    final = (await memory.call("search", namespace="load", metadata_filter={"kind": "counter"}))["items"][0]
    assert final["metadata"]["n"] == WORKERS * INCREMENTS
    assert final["version"] == 1 + WORKERS * INCREMENTS
    async with memory.state.engine.connect() as conn:
        rows = (await conn.execute(sa.select(entries.c.content, entries.c["metadata"], entries.c.version))).all()
    saved = [r for r in rows if r.metadata.get("w") is not None]
    assert len(saved) == WORKERS * SAVES
    assert {r.content for r in saved} == {f"worker {w} memo {i}" for w in range(WORKERS) for i in range(SAVES)}
    assert all(r.content == f"worker {r.metadata['w']} memo {r.metadata['i']}" and r.version == 1 for r in saved)
    # this process's index learns of the other processes' writes
    found = await memory.call("search", namespace="load", query="worker 2 memo 7", k=3)
    assert "worker 2 memo 7" in [i["content"] for i in found["items"]]


async def test_two_indexes_on_one_sqlite_file_stay_in_step(sqlite_url: str, tmp_path: Path) -> None:
    async for a in start_memory(sqlite_url, tmp_path / "a"):
        async for b in start_memory(sqlite_url, tmp_path / "b"):
            made = await a.call("save", namespace="n", content="Piano recital rehearsal on Tuesday evening")
            found = await b.call("search", namespace="n", query="piano recital", mode="semantic")
            assert [i["memo_id"] for i in found["items"]] == [made["memo_id"]]
            await a.call("save", namespace="n", memo_id=made["memo_id"], content="Snow tires before November")
            found = await b.call("search", namespace="n", query="winter tires", mode="semantic", k=1)
            assert found["items"][0]["memo_id"] == made["memo_id"]
            await a.call("delete", namespace="n", memo_id=made["memo_id"])
            assert (await b.call("search", namespace="n", query="winter tires", mode="semantic"))["items"] == []
            assert b.state.index is not None and len(b.state.index) == 0


async def test_workers_starting_together_maintain_the_index_without_deadlock(memory: Memory) -> None:
    """Every worker's start creates the HNSW index and analyses the table, on its own connection."""
    if memory.state.engine.dialect.name != "postgresql":
        pytest.skip("the HNSW index and ANALYZE are PostgreSQL's")
    from mcpist.modules.memory.tools import ensure_pg_index

    await memory.call("save", namespace="n", content="something to analyse")
    with anyio.fail_after(60):
        for _ in range(5):
            async with anyio.create_task_group() as tg:
                for _ in range(4):
                    tg.start_soon(ensure_pg_index, memory.state)
