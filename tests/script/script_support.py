"""Shared by the run_script tests: a probe module whose tools show concurrency and hang on purpose,
MCPist with memory, context and the probe, and helpers to run scripts through an MCP client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp import Client
from pydantic import Field

from mcpist.config import ScriptSettings
from mcpist.modules import Module, ToolContext
from mcpist.modules.api import Caller
from mcpist.modules.registry import Registry
from mcpist.runtime import Runtime
from mcpist.testing import in_process_client, running

probe = Module("probe", summary="Test tools: ordered finishes, crowds, hangs")


@dataclass
class ProbeState:
    calls: int = 0
    finished: int = 0
    in_flight: int = 0
    peak: int = 0
    changed: anyio.Event = field(default_factory=anyio.Event)
    crowded: anyio.Event = field(default_factory=anyio.Event)

    def bump(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()


_STATE: list[ProbeState] = []


def reset_probe() -> ProbeState:
    """A fresh probe state (made inside the event loop: anyio events need one)."""
    _STATE[:] = [ProbeState()]
    return _STATE[0]


def _probe() -> ProbeState:
    return _STATE[0] if _STATE else reset_probe()


@probe.tool(read_only=True)
async def ordered(ctx: ToolContext[Any], tag: str, rank: Annotated[int, Field(ge=0, le=100)]) -> dict[str, Any]:
    """Finish only after `rank` other calls have finished: calls run one after another never get past rank 1."""
    state = _probe()
    state.calls += 1
    with anyio.fail_after(5):
        while state.finished < rank:
            await state.changed.wait()
    state.finished += 1
    state.bump()
    return {"tag": tag, "finished": state.finished}


@probe.tool(read_only=True)
async def crowd(ctx: ToolContext[Any], size: Annotated[int, Field(ge=1, le=100)]) -> dict[str, int]:
    """Wait until `size` calls are running at once (then let every call through); counts the peak."""
    state = _probe()
    state.calls += 1
    state.in_flight += 1
    state.peak = max(state.peak, state.in_flight)
    try:
        if state.in_flight >= size:
            state.crowded.set()
        with anyio.fail_after(5):
            await state.crowded.wait()
        return {"peak": state.peak}
    finally:
        state.in_flight -= 1


@probe.tool(read_only=True)
async def count(ctx: ToolContext[Any]) -> dict[str, int]:
    """Count this call."""
    state = _probe()
    state.calls += 1
    return {"calls": state.calls}


@probe.tool(read_only=True)
async def hang(ctx: ToolContext[Any]) -> None:
    """Never answer (until cancelled)."""
    _probe().calls += 1
    await anyio.sleep_forever()


def modules(*names: str) -> list[Module]:
    found = Registry.from_entry_points(enabled=list(names) or ["memory", "context"])
    return [*found, probe]


@asynccontextmanager
async def world(data_dir: Path, *names: str) -> AsyncIterator[Runtime]:
    async with running(modules(*names), data_dir) as rt:
        yield rt


@asynccontextmanager
async def client(rt: Runtime, caller: Caller | None = None, **limits: Any) -> AsyncIterator[Client]:
    """An MCP client whose server (and script sandbox pool) uses these script limits."""
    saved = rt.settings
    rt.settings = saved.model_copy(update={"script": ScriptSettings(**{"workers": 1, **limits})})
    try:
        async with in_process_client(rt, caller) as c:
            rt.settings = saved
            yield c
    finally:
        rt.settings = saved


async def run(c: Client, script: str, args: dict[str, Any] | None = None) -> tuple[bool, Any]:
    """(is_error, structured content) of one run_script."""
    arguments: dict[str, Any] = {"script": script}
    if args is not None:
        arguments["args"] = args
    result = await c.call_tool("run_script", arguments)
    return bool(result.is_error), result.structured_content


async def ok(c: Client, script: str, args: dict[str, Any] | None = None) -> Any:
    failed, body = await run(c, script, args)
    assert not failed, body
    return body


async def error(c: Client, script: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    failed, body = await run(c, script, args)
    assert failed, body
    assert isinstance(body, dict)
    return body


async def server_still_answers(c: Client) -> None:
    assert await ok(c, "def main():\n    return call('probe', 'count')['calls'] > 0\n") == {"result": True}
    direct = await c.call_tool("call", {"module": "probe", "tool_name": "count"})
    assert not direct.is_error
