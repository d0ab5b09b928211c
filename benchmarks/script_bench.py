"""What `run_script` costs: a trivial script's overhead, and 10 tool calls as a script against a batch.

    .venv/bin/python benchmarks/script_bench.py              # about 20 s on 2 cores
    .venv/bin/python benchmarks/script_bench.py --runs 100   # quicker, noisier

Every figure goes through `MetaToolHandler.run` (the meta-tool path without the MCP SDK's transport),
on SQLite in a temporary data directory, with a benchmark-local no-op tool `bench.echo`:

  call          one `call` of bench.echo: the baseline a script's own cost is measured against
  trivial       `run_script` of `def main(): return 1` on a warm sandbox process
  cold          the same on a pool that has just been created: a process start is paid
  script x10    a script calling bench.echo 10 times in a loop (10 round trips to the sandbox)
  call_all x10  a script making the 10 calls with one `call_all` (one round trip, concurrent calls)
  batch x10     a `batch` of 10 independent bench.echo tasks

Progress goes to stderr, the Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel

from mcpist.config import load_settings
from mcpist.modules import Caller, Module, ToolContext
from mcpist.modules.registry import Registry
from mcpist.protocol.server import MetaToolHandler
from mcpist.runtime import start_runtime

bench = Module("bench", summary="Benchmark tools: a no-op echo")


@bench.tool(read_only=True)
async def echo(ctx: ToolContext[Any], text: str) -> dict[str, str]:
    """Return the text."""
    await anyio.lowlevel.checkpoint()
    return {"text": text}


TRIVIAL = "def main():\n    return 1\n"
LOOP = "def main():\n    return [call('bench', 'echo', {'text': str(i)}) for i in range(10)]\n"
CALL_ALL = (
    "def main():\n    return call_all([{'module': 'bench', 'tool': 'echo', 'params': {'text': str(i)}}"
    " for i in range(10)])\n"
)
BATCH = "\n".join(
    f'{{"id":"t{i}","module":"bench","tool":"echo","params":{{"text":"{i}"}},"output":true}}' for i in range(10)
)


def log(message: str) -> None:
    print(f"[script_bench] {message}", file=sys.stderr, flush=True)


def percentile(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[max(1, math.ceil(q / 100 * len(sorted_ms))) - 1]


async def measure(runs: int, once: Callable[[], Awaitable[None]]) -> tuple[float, float, float]:
    """p50, p95 and mean in milliseconds, after a warm-up."""
    for _ in range(max(5, runs // 10)):
        await once()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await once()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return percentile(times, 50), percentile(times, 95), statistics.fmean(times)


async def run(runs: int, cold_runs: int) -> list[tuple[str, tuple[float, float, float]]]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(data_dir=Path(tmp), access_cache_s=2)
        async with start_runtime(settings, Registry([bench])) as rt:
            owner = Caller(user_id=rt.owner.id, email=rt.owner.email)
            handler = MetaToolHandler(rt)

            def tool(name: str, args: dict[str, Any]) -> Callable[[], Awaitable[None]]:
                async def once() -> None:
                    result = await handler.run(owner, name, args, None)
                    assert not result.is_error, result.structured_content

                return once

            rows = []
            cases = [
                ("call", tool("call", {"module": "bench", "tool_name": "echo", "params": {"text": "x"}})),
                ("trivial", tool("run_script", {"script": TRIVIAL})),
                ("script x10", tool("run_script", {"script": LOOP})),
                ("call_all x10", tool("run_script", {"script": CALL_ALL})),
                ("batch x10", tool("batch", {"tasks": BATCH})),
            ]
            for name, once in cases:
                log(f"{name}: {runs} runs")
                rows.append((name, await measure(runs, once)))

            log(f"cold: {cold_runs} new pools")
            cold = []
            for _ in range(cold_runs):
                fresh = MetaToolHandler(rt)
                started = time.perf_counter()
                result = await fresh.run(owner, "run_script", {"script": TRIVIAL}, None)
                cold.append((time.perf_counter() - started) * 1000)
                assert not result.is_error
                fresh.scripts.close()
            cold.sort()
            rows.insert(2, ("cold", (percentile(cold, 50), percentile(cold, 95), statistics.fmean(cold))))
            handler.scripts.close()
            return rows


def main() -> int:
    parser = argparse.ArgumentParser(description="run_script benchmark (see the module docstring).")
    parser.add_argument("--runs", type=int, default=500, help="timed runs per figure (default 500)")
    parser.add_argument("--cold", type=int, default=20, help="pools started for the cold figure (default 20)")
    options = parser.parse_args()
    rows = anyio.run(run, options.runs, options.cold)
    base = dict(rows)["call"]
    print("| path | p50 ms | p95 ms | mean ms | p50 over one `call` |")
    print("|---|---|---|---|---|")
    for name, (p50, p95, mean) in rows:
        extra = "" if name == "call" else f"+{p50 - base[0]:.2f} ms"
        print(f"| {name} | {p50:.2f} | {p95:.2f} | {mean:.2f} | {extra} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
