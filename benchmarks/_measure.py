"""What the benchmarks measure with: nearest-rank percentiles, the CPU a process or the whole machine spent
(Linux /proc), and latency under concurrent callers (`measure`)."""

from __future__ import annotations

import gc
import math
import os
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio


def percentile(sorted_ns: Sequence[int], q: float) -> float:
    """Nearest-rank percentile, in milliseconds."""
    rank = max(1, math.ceil(q / 100 * len(sorted_ns)))
    return sorted_ns[rank - 1] / 1e6


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process, all threads (Linux /proc); None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def system_busy_s() -> float | None:
    """CPU seconds all processes have spent busy since boot (Linux /proc/stat); None elsewhere."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:9]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields)
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    """CPU seconds of this process and its reaped children (the `mcpist` subprocesses)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


Call = Callable[[], Awaitable[Any]]


async def measure(calls: Sequence[Call], each: int, warmup: int, server_pid: int | None = None) -> dict[str, Any]:
    """Latency percentiles while one task per entry of `calls` makes `each` calls back to back.

    Also the throughput and the CPU each call cost this process (and the server process, if given).
    """

    async def warm(call: Call) -> None:
        for _ in range(warmup):
            await call()

    samples: list[int] = []

    async def worker(call: Call) -> None:
        for _ in range(each):
            start = time.perf_counter_ns()
            await call()
            samples.append(time.perf_counter_ns() - start)

    async with anyio.create_task_group() as tg:
        for call in calls:
            tg.start_soon(warm, call)
    gc.collect()
    server_before = process_cpu_s(server_pid) if server_pid else None
    cpu_before = time.process_time()
    wall_before = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for call in calls:
            tg.start_soon(worker, call)
    wall = time.perf_counter() - wall_before
    cpu = time.process_time() - cpu_before
    server_after = process_cpu_s(server_pid) if server_pid else None
    ordered = sorted(samples)
    n = len(ordered)
    return {
        "clients": len(calls),
        "n": n,
        "p50_ms": percentile(ordered, 50),
        "p99_ms": percentile(ordered, 99),
        "mean_ms": statistics.fmean(ordered) / 1e6,
        "calls_per_s": n / wall,
        "cpu_ms_per_call": cpu / n * 1000,
        "server_cpu_ms_per_call": (
            (server_after - server_before) / n * 1000
            if server_before is not None and server_after is not None
            else None
        ),
    }
