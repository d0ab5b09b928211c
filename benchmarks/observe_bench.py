"""What observability costs a trivial tool call: CPU per call with `[observe]` off and on.

    .venv/bin/python benchmarks/observe_bench.py            # about 1 minute on 2 cores
    .venv/bin/python benchmarks/observe_bench.py --calls 500

Two paths, each with a benchmark-local no-op tool, on SQLite in a temporary data directory:
  execute  `Runtime.execute` with the caller's `Principal` resolved (the tool-call hook, the audit row)
  http     an MCP SDK client over Streamable HTTP to the ASGI app in this process (client and server
           share one event loop, so the figure carries both sides; it adds the request-id middleware
           and the timing of every database statement the request makes)
and three settings:
  off      metrics = false, audit = false
  on       metrics and audit on (the defaults)
  traced   on, plus OpenTelemetry spans to an exporter that drops them (the SDK's span machinery, no I/O)

CPU is `time.process_time()` over the calls (the audit writer's batch inserts included, as it runs
in the same process), divided by the number of calls; the median and the minimum of `--rounds`
rounds are reported (the minimum is the least disturbed by other load).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from mcpist.auth.tokens import TokenStore
from mcpist.config import load_settings
from mcpist.modules import Module, ToolContext
from mcpist.modules.api import Caller
from mcpist.modules.registry import Registry
from mcpist.observe import _tracing
from mcpist.runtime import Runtime, start_runtime
from mcpist.web.app import create_app

bench = Module("bench", summary="Benchmark tools: a no-op echo")


@bench.tool(read_only=True)
async def echo(ctx: ToolContext[Any], text: str = "") -> dict[str, str]:
    """Return the text."""
    return {"text": text}


class Dropped(SpanExporter):
    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


SETTINGS = {
    "off": {"metrics": False, "audit": False},
    "on": {},
    "traced": {},
}


@asynccontextmanager
async def bench_runtime(data_dir: Path, mode: str) -> AsyncIterator[Runtime]:
    settings = load_settings(data_dir=data_dir, access_cache_s=60, observe=SETTINGS[mode])
    try:
        async with start_runtime(settings, Registry([bench])) as rt:
            if mode == "traced":
                _tracing.enable(settings.observe, rt.version, exporter=Dropped(), install_global=False)
            yield rt
    finally:
        _tracing.disable()  # once the runtime's last spans (its shutdown's statements) have ended


async def cpu_per_call(call: Callable[[], Awaitable[Any]], calls: int) -> float:
    for _ in range(min(50, calls)):
        await call()
    gc.collect()
    started = time.process_time()
    for _ in range(calls):
        await call()
    return (time.process_time() - started) / calls


async def run_execute(rt: Runtime, calls: int) -> float:
    principal = await rt.principal(Caller(user_id=rt.owner.id, email=rt.owner.email))

    async def call() -> Any:
        return await rt.execute(principal, "bench", "echo", {"text": "x"})

    return await cpu_per_call(call, calls)


async def run_http(rt: Runtime, calls: int) -> float:
    app = create_app(rt)
    _, token = await TokenStore(rt.engine).create(f"bench-{uuid.uuid4().hex[:8]}", rt.owner.id)
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app),
            base_url="http://127.0.0.1:8765",
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        ) as http,
        Client(streamable_http_client("http://127.0.0.1:8765/mcp", http_client=http), mode="2026-07-28") as client,
    ):

        async def call() -> Any:
            result = await client.call_tool("call", {"module": "bench", "tool_name": "echo", "params": {"text": "x"}})
            assert not result.is_error, result.content
            return result

        return await cpu_per_call(call, calls)


async def main(calls: int, rounds: int) -> None:
    results: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(rounds):
            for mode in SETTINGS:  # interleaved, so drift (thermal, other load) hits every mode alike
                async with bench_runtime(Path(tmp) / f"{mode}-{round_}", mode) as rt:
                    results.setdefault(("execute", mode), []).append(await run_execute(rt, calls * 4))
                    results.setdefault(("http", mode), []).append(await run_http(rt, calls))
    print("| path | statistic | off | on | traced | on - off | traced - off |")
    print("|---|---|---|---|---|---|---|")
    for path in ("execute", "http"):
        for name, pick in (("median", statistics.median), ("min", min)):
            v = {m: pick(results[(path, m)]) * 1e6 for m in SETTINGS}
            print(
                f"| {path} | {name} | {v['off']:.1f} µs | {v['on']:.1f} µs | {v['traced']:.1f} µs "
                f"| {v['on'] - v['off']:+.1f} µs ({(v['on'] / v['off'] - 1) * 100:+.1f}%) "
                f"| {v['traced'] - v['off']:+.1f} µs ({(v['traced'] / v['off'] - 1) * 100:+.1f}%) |"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per round over HTTP (execute: 4x)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    anyio.run(main, args.calls, args.rounds)
