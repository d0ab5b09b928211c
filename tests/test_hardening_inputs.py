"""Inputs bounded by what the work costs: memory's query and embedded text, CPU work off the event loop
under a deadline, filters SQL cannot compare, memos per namespace, and a batch answer bounded once."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from demo_module import demo
from mcpist.errors import DeadlineExceeded
from mcpist.modules.memory import module as memory
from mcpist.modules.memory.gate import Gate
from mcpist.testing import in_process_client, running

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def client(tmp_path: Path, **settings: Any) -> AsyncIterator[Client]:
    async with running([memory, demo], tmp_path, **settings) as rt, in_process_client(rt) as mcp:
        yield mcp


async def call(mcp: Client, tool: str, **params: Any) -> dict[str, Any]:
    answer = await mcp.call_tool("call", {"module": "memory", "tool_name": tool, "params": params})
    data: dict[str, Any] = answer.structured_content
    return data


async def test_a_long_query_is_refused_naming_query_and_the_limit(tmp_path: Path) -> None:
    async with client(tmp_path) as mcp:
        answer = await call(mcp, "search", namespace="n", query="word " * 401)
        assert answer["code"] == "INVALID_ARGUMENT"
        assert answer["message"] == "'query' has 2005 characters; the limit is 2000"
        assert answer["data"] == {"field": "query", "limit": 2000}
        assert (await call(mcp, "search", namespace="n", query="x" * 2000))["items"] == []


async def test_a_470_byte_batch_cannot_build_a_huge_query(tmp_path: Path) -> None:
    # every `[@, @, @, @, @, @, @, @] | join('', @)` multiplies the text by eight: 36 characters become 147,456
    grow = " | [@, @, @, @, @, @, @, @] | join('', @)" * 4
    lines = [
        {"id": "a", "module": "memory", "tool": "save", "params": {"namespace": "n", "content": "seed"}},
        {
            "id": "b",
            "module": "memory",
            "tool": "search",
            "after": ["a"],
            "params": {"namespace": "n", "query": "${a.memo_id" + grow + "}"},
        },
    ]
    text = "\n".join(json.dumps(line, separators=(",", ":")) for line in lines)
    assert len(text.encode()) <= 470
    async with client(tmp_path) as mcp:
        answer = (await mcp.call_tool("batch", {"tasks": text})).structured_content
    failure = answer["failed"]["b"]
    assert failure["code"] == "INVALID_ARGUMENT"
    assert failure["message"] == "'query' has 147456 characters; the limit is 2000"
    assert failure["data"]["field"] == "query"


async def test_text_past_what_the_model_reads_is_embedded_cut_and_the_save_says_so(tmp_path: Path) -> None:
    async with client(tmp_path) as mcp:
        short = await call(mcp, "save", namespace="n", content="a short memo about tea")
        assert short["warnings"] == []
        content = "The harbour walk at dawn. " * 400  # 10,400 characters
        saved = await call(mcp, "save", namespace="n", content=content)
        warning = next(w for w in saved["warnings"] if w["code"] == "embedding_truncated")
        assert warning["memo_id"] == saved["memo_id"]
        assert "only the first 4000 of 10400 characters were embedded" in warning["message"]
        # keyword search still reads all of it
        found = await call(mcp, "search", namespace="n", query="harbour dawn", mode="keyword")
        assert [i["memo_id"] for i in found["items"]] == [saved["memo_id"]]


@pytest.mark.parametrize(
    ("metadata_filter", "problem"),
    [
        ({"n": 2**63}, "has an integer outside signed 64 bits"),
        ({"n": -(2**63) - 1}, "has an integer outside signed 64 bits"),
        ({"nested": {"list": [1, 2**70]}}, "has an integer outside signed 64 bits"),
        ({"bad\x00key": 1}, "has a key with a NUL character"),
        ({"k": "bad\x00value"}, "has a string with a NUL character"),
    ],
)
async def test_filters_sql_cannot_compare_are_invalid_arguments(
    tmp_path: Path, metadata_filter: dict[str, Any], problem: str
) -> None:
    async with client(tmp_path) as mcp:
        await call(mcp, "save", namespace="n", content="a memo", metadata={"n": 1})
        for mode in ("contains", "exact"):
            answer = await call(mcp, "search", namespace="n", metadata_filter=metadata_filter, metadata_match=mode)
            assert answer["code"] == "INVALID_ARGUMENT", answer
            assert answer["message"] == f"'metadata_filter' {problem}"
            assert answer["data"] == {"field": "metadata_filter"}
        assert len((await call(mcp, "search", namespace="n", metadata_filter={"n": 2**63 - 1}))["items"]) == 0
        assert len((await call(mcp, "search", namespace="n", metadata_filter={"n": 1}))["items"]) == 1


@pytest.mark.parametrize("field", ["content", "title", "namespace"])
async def test_nul_characters_in_text_are_invalid_arguments(tmp_path: Path, field: str) -> None:
    params = {"namespace": "n", "content": "text", field: "with \x00 inside"}
    async with client(tmp_path) as mcp:
        answer = await call(mcp, "save", **params)
        assert (answer["code"], answer["data"]["field"]) == ("INVALID_ARGUMENT", field)


async def test_memos_per_namespace_are_bounded(tmp_path: Path) -> None:
    settings = {"modules": {"settings": {"memory": {"max_memos_per_namespace": 2}}}}
    async with client(tmp_path, **settings) as mcp:
        first = await call(mcp, "save", namespace="n", content="one")
        await call(mcp, "save", namespace="n", content="two")
        over = await call(mcp, "save", namespace="n", content="three")
        assert over["code"] == "RESOURCE_EXHAUSTED"
        assert over["message"].startswith("namespace 'n' holds 2 memos, its limit (memory.max_memos_per_namespace)")
        assert (await call(mcp, "save", namespace="n", memo_id=first["memo_id"], content="one, edited"))["version"] == 2
        assert "memo_id" in await call(mcp, "save", namespace="other", content="three")


async def test_a_long_save_does_not_stall_the_event_loop(tmp_path: Path) -> None:
    async with client(tmp_path) as mcp:
        content = "長い文章を書きます。The harbour walk at dawn, 港の散歩。" * 2_400  # 98,400 characters
        gaps: list[float] = []
        done = anyio.Event()

        async def tick() -> None:
            last = anyio.current_time()
            while not done.is_set():
                await anyio.sleep(0.005)  # measuring the loop's responsiveness, not waiting for something
                now = anyio.current_time()
                gaps.append(now - last)
                last = now

        async with anyio.create_task_group() as tg:
            tg.start_soon(tick)
            saved = await call(mcp, "save", namespace="n", content=content)
            done.set()
        assert saved.get("version") == 1, saved
        assert max(gaps) < 0.25, max(gaps)  # tokenising 100k characters takes ~1 s of CPU


async def test_the_gate_bounds_concurrency_and_gives_up_at_its_deadline() -> None:
    running_now, peak = 0, 0
    release = anyio.Event()
    ran: list[str] = []

    async def work(name: str, wait: bool) -> str:
        nonlocal running_now, peak
        running_now += 1
        peak = max(peak, running_now)
        ran.append(name)
        if wait:
            await release.wait()
        running_now -= 1
        return name

    async with anyio.create_task_group() as tg:
        gate = Gate(tg, workers=1, deadline_s=0.2)
        with pytest.raises(DeadlineExceeded, match=r"embedding did not finish within 0.2 s"):
            await gate.run("embedding", lambda: work("stuck", True))
        # the abandoned work still holds the only slot: the next caller waits, and gives up at its deadline
        with pytest.raises(DeadlineExceeded):
            await gate.run("embedding", lambda: work("queued", False))
        release.set()
        assert await gate.run("embedding", lambda: work("next", False)) == "next"
    assert peak == 1
    assert ran == ["stuck", "next"]  # the queued work its caller gave up on never ran


async def test_a_batch_answer_fits_its_bound_as_sent_text_and_structured_content_together(tmp_path: Path) -> None:
    lines = [
        {"id": f"t{n}", "module": "demo", "tool": "echo", "params": {"text": "x" * 900}, "output": True}
        for n in range(6)
    ]
    batch = {"max_output_bytes": 4096, "max_result_bytes": 2048}
    async with running([demo], tmp_path, batch=batch) as rt, in_process_client(rt) as mcp:
        answer = await mcp.call_tool("batch", {"tasks": "\n".join(json.dumps(line) for line in lines)})
    sent = len(answer.content[0].text.encode()) + len(
        json.dumps(answer.structured_content, separators=(",", ":")).encode()
    )
    assert sent <= 4096
    assert answer.structured_content["results"]
    assert set(answer.structured_content["results"]) | set(answer.structured_content["omitted"]) == {
        f"t{n}" for n in range(6)
    }


async def test_the_vector_index_never_deadlocks_a_full_connection_pool(tmp_path: Path) -> None:
    import logging

    from mcpist.modules.memory.vector_index import SqliteVectorIndex
    from mcpist.storage.engine import create_engine

    async with running([memory], tmp_path) as rt:
        # two connections in all: the pool is full once the test holds both
        small = create_engine(rt.settings.resolved_database_url, pool_size=2, max_overflow=0, pool_timeout=30)
        try:
            async with anyio.create_task_group() as tg:
                index = SqliteVectorIndex(
                    small, model="m", dim=4, hnsw_threshold=100, ef_search=10, logger=logging.getLogger("t")
                )
                held = [await small.connect() for _ in range(2)]
                tg.start_soon(index.sync)  # needs a connection of its own
                await anyio.wait_all_tasks_blocked()
                with anyio.fail_after(5):  # under load, searches hold a connection and then sync with it
                    for conn in held:
                        await index.sync(conn)
                        await conn.close()
        finally:
            await small.dispose()
