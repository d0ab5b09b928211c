"""Every limit of run_script, exceeded through an MCP client: a clear error, and the server answers on."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import anyio
import pytest
from script_support import client, error, ok, reset_probe, server_still_answers, world

from mcpist.runtime import Runtime

pytestmark = pytest.mark.anyio

ENDLESS = """
def main():
    for a in range(1000000):
        for b in range(1000000):
            pass
"""


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def rt(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Runtime]:
    async with world(tmp_path_factory.mktemp("script_limits")) as runtime:
        yield runtime


async def test_an_endless_loop_stops_at_the_cpu_limit_with_its_line(rt: Runtime) -> None:
    async with client(rt, cpu_time_s=0.3) as c:
        started = time.monotonic()
        body = await error(c, ENDLESS)
        assert time.monotonic() - started < 5
        assert body["code"] == "RESOURCE_EXHAUSTED"
        assert body["message"].startswith("the script used more than 0.3 s of CPU time")
        assert body["data"]["limit"] == "cpu_time_s"
        assert body["data"]["line"] in (3, 4, 5)
        await server_still_answers(c)


async def test_the_wall_time_covers_tool_calls_and_computation(rt: Runtime) -> None:
    state = reset_probe()
    async with client(rt, wall_time_s=0.5) as c:
        started = time.monotonic()
        waiting = await error(c, "def main():\n    call('probe', 'hang')\n")
        assert time.monotonic() - started < 5
        assert waiting["code"] == "DEADLINE_EXCEEDED"
        assert waiting["message"] == "the script did not finish within 0.5 s"
        assert waiting["data"] == {"limit": "wall_time_s"}
        assert state.calls == 1
        computing = await error(c, ENDLESS)
        assert computing["code"] == "DEADLINE_EXCEEDED" and computing["data"]["line"] in (3, 4, 5)
        await server_still_answers(c)


async def test_deep_recursion_stops_at_the_depth_limit(rt: Runtime) -> None:
    async with client(rt, max_depth=20) as c:
        body = await error(c, "def down(n):\n    return down(n + 1)\n\ndef main():\n    return down(0)\n")
        assert body["code"] == "RESOURCE_EXHAUSTED"
        assert body["data"] == {"limit": "max_depth", "line": 2, "column": 12}
        assert await ok(
            c, "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\n\ndef main():\n    return f(15)\n"
        ) == {"result": 15}


@pytest.mark.parametrize(
    "script",
    [
        "def main():\n    xs = [0] * 1000000000\n    return len(xs)\n",
        "def main():\n    s = 'x' * 1000\n    xs = [s * 1000 for i in range(1000000)]\n    return len(xs)\n",
    ],
    ids=["one-block", "growing"],
)
async def test_a_huge_allocation_stops_at_the_memory_limit(rt: Runtime, script: str) -> None:
    async with client(rt, memory_mb=128) as c:
        body = await error(c, script)
        assert body["code"] == "RESOURCE_EXHAUSTED"
        assert body["message"].startswith("the script used more than 128 MiB of memory")
        assert body["data"]["limit"] == "memory_mb"
        await server_still_answers(c)
        # a fresh process, with its whole allowance again
        assert await ok(c, "def main():\n    return len([0] * 1000000)\n") == {"result": 1000000}


async def test_too_many_tool_calls_stop_the_script_even_inside_try_call(rt: Runtime) -> None:
    state = reset_probe()
    async with client(rt, max_tool_calls=3) as c:
        body = await error(c, "def main():\n    for i in range(10):\n        try_call('probe', 'count')\n")
        assert body == {
            "code": "RESOURCE_EXHAUSTED",
            "message": "the script made more than 3 tool calls (line 3, column 9)",
            "data": {"limit": "max_tool_calls", "line": 3, "column": 9},
        }
        assert state.calls == 3
        # a call_all that would pass the limit runs none of its calls
        many = "[{'module': 'probe', 'tool': 'count'}] * 4"
        assert (await error(c, f"def main():\n    return call_all({many})\n"))["data"]["limit"] == "max_tool_calls"
        assert state.calls == 3
        await server_still_answers(c)


async def test_a_huge_result_stops_at_the_output_limit(rt: Runtime) -> None:
    async with client(rt, max_output_bytes=2048) as c:
        body = await error(c, "def main():\n    return 'x' * 5000\n")
        assert body["code"] == "RESOURCE_EXHAUSTED"
        assert body["data"] == {"limit": "max_output_bytes", "bytes": 5002}
        assert await ok(c, "def main():\n    return 'x' * 2000\n") == {"result": "x" * 2000}


async def test_deep_nesting_stops_at_the_nesting_limit(rt: Runtime) -> None:
    deep = "def main():\n    x = []\n    for i in range(20):\n        x = [x]\n    return {}\n"
    async with client(rt, max_nesting=8) as c:
        result = await error(c, deep.replace("return {}", "return x"))
        assert result["code"] == "RESOURCE_EXHAUSTED" and result["data"]["limit"] == "max_nesting"
        params = await error(c, deep.replace("return {}", "return call('probe', 'count', {'x': x})"))
        assert params["data"]["limit"] == "max_nesting" and params["data"]["line"] == 5
        # deeper than the interpreter converts at all
        deepest = await error(c, deep.replace("range(20)", "range(1200)").replace("return {}", "return x"))
        assert deepest["data"]["limit"] == "max_nesting"
        nested_args: dict[str, object] = {}
        for _ in range(10):
            nested_args = {"a": nested_args}
        bad_args = await c.call_tool("run_script", {"script": "def main():\n    return 1\n", "args": nested_args})
        assert bad_args.structured_content == {
            "code": "INVALID_ARGUMENT",
            "message": "args nests deeper than 8 levels",
            "data": {"field": "args"},
        }
        await server_still_answers(c)


async def test_scripts_run_side_by_side_up_to_the_worker_count(rt: Runtime) -> None:
    state = reset_probe()
    # each script waits until both are inside the tool at once: only two parallel sandboxes get there
    script = "def main():\n    return call('probe', 'crowd', {'size': 2})\n"
    async with client(rt, workers=2) as c:
        results: list[object] = []

        async def one() -> None:
            results.append(await ok(c, script))

        async with anyio.create_task_group() as tg:
            tg.start_soon(one)
            tg.start_soon(one)
    assert results == [{"peak": 2}, {"peak": 2}]
    assert state.calls == 2
