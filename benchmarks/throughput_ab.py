"""Server CPU per call of this tree's MCPist over another checkout's: two servers, one core, same run.

    git worktree add --detach /tmp/mcpist-old HEAD~1
    .venv/bin/python benchmarks/throughput_ab.py /tmp/mcpist-old              # both revisions
    .venv/bin/python benchmarks/throughput_ab.py /tmp/mcpist-old --rounds 8 --mode 2026-07-28

Both servers (`mcpist serve`, SQLite, one data directory, the no-op `bench.echo` tool of
`throughput_bench.py`) are pinned to CPU 0 and the load generator to CPU 1; their rounds alternate
(old, new, new, old, ...) so the machine's drift falls on both alike, and the ratio new / old is
taken per round pair. The checkout runs its own `src` and its own `benchmarks/throughput_bench.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path

import throughput_bench as tb

CALL = {"module": "bench", "tool_name": "echo", "params": {"text": "hi"}}


def _argv(checkout: Path, data_dir: Path, port: int) -> list[str]:
    return [
        sys.executable,
        str(checkout / "benchmarks" / "throughput_bench.py"),
        "_serve-mcpist",
        str(data_dir),
        str(port),
        "1",
    ]


async def compare(old: Path, rounds: int, each: int, modes: list[str]) -> None:
    os.sched_setaffinity(0, {1})
    here = tb.ROOT.parent
    base_env = tb.mcpist_env
    with tempfile.TemporaryDirectory(prefix="mcpist-ab-") as tmp:
        data = Path(tmp) / "d"
        token = await tb.new_token(data)
        ports = tb.free_port(), tb.free_port()
        async with AsyncExitStack() as stack:
            served = []
            for name, checkout, port in (("old", old, ports[0]), ("new", here, ports[1])):
                # read when the server starts: each runs its own checkout's code
                tb.mcpist_env = lambda checkout=checkout: {**base_env(), "PYTHONPATH": str(checkout / "src")}
                url = f"http://127.0.0.1:{port}/mcp"
                served.append(
                    await stack.enter_async_context(tb.start(name, _argv(checkout, data, port), url, token, {0}))
                )
            tb.mcpist_env = base_env
            first, second = served
            for mode in modes:
                flow = await tb.capture(second.url, token, "legacy" if mode == tb.LEGACY else mode, "call", CALL)
                for server in served:
                    await tb.load(server, flow, tb.CLIENTS, 10)  # warm-up
                cpu: dict[str, list[float]] = {"old": [], "new": []}
                for r in range(rounds):
                    for server in (first, second) if r % 2 == 0 else (second, first):
                        figures = (await tb.load(server, flow, tb.CLIENTS, each)).figures()
                        cpu[server.name].append(figures["cpu_ms_per_call"])
                ratios = [n / o for n, o in zip(cpu["new"], cpu["old"], strict=True)]
                print(
                    f"{mode}: server CPU per call old {statistics.median(cpu['old']):.3f} ms, "
                    f"new {statistics.median(cpu['new']):.3f} ms; new / old {statistics.median(ratios):.3f} "
                    f"(rounds {', '.join(f'{x:.3f}' for x in ratios)})",
                    flush=True,
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="a checkout of MCPist to compare against (its src and benchmarks)")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--each", type=int, default=40, help="calls per client per round")
    parser.add_argument("--mode", action="append", choices=(tb.MODERN, tb.LEGACY), help="default: both")
    opts = parser.parse_args()
    if not (opts.old / "benchmarks" / "throughput_bench.py").is_file():
        parser.error(f"{opts.old} is not a checkout of MCPist (no benchmarks/throughput_bench.py)")
    asyncio.run(compare(opts.old.resolve(), opts.rounds, opts.each, opts.mode or [tb.MODERN, tb.LEGACY]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
