"""Soak: 50 MCP clients against a real `mcpist serve` for minutes, with the server's RSS sampled.

    .venv/bin/python benchmarks/soak_bench.py                 # 50 clients, 10 minutes
    .venv/bin/python benchmarks/soak_bench.py --minutes 2     # shorter
    .venv/bin/python benchmarks/soak_bench.py --json          # the figures as JSON

Each client is a user of its own with an API token and an MCP session (Streamable HTTP, 2025-11-25),
and calls back to back: memory search (hybrid, 40%), memory save (20%), get_module_schema (15%), a
three-task batch (15%), a long query the server must refuse (5%); now and then (5%) it ends its
session and opens a new one. The server runs with default settings, but for loading only the memory
module, on SQLite in a temporary data directory, over loopback. The report gives calls, errors (a
refusal the client asked for is not one), latency percentiles, and the server's resident memory at
the start (after a warm-up), its peak, and at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
from _serve import clean_env, free_port, mcpist_command, running
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcpist.auth.tokens import TokenStore
from mcpist.auth.users import add_user
from mcpist.config import load_settings
from mcpist.runtime import start_runtime
from mcpist.sieve import create_role, grant_role

WORDS = [
    "harbour",
    "dawn",
    "tea",
    "garden",
    "meeting",
    "budget",
    "release",
    "deploy",
    "invoice",
    "travel",
    "kyoto",
    "会議",
    "予算",
    "旅行",
    "散歩",
    "コーヒー",
    "締め切り",
    "design",
    "review",
    "customer",
    "contract",
    "bicycle",
    "piano",
    "lesson",
    "recipe",
]


MODULES = ["memory"]
"""What the server loads: the clients call only memory (and the meta-tools)."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def create_tokens(data_dir: Path, count: int) -> list[str]:
    """One user per client, each with a token and a role allowing the memory module."""
    settings = load_settings(data_dir=data_dir, modules={"enabled": MODULES})
    async with start_runtime(settings, start_modules=False) as rt:
        await create_role(rt.engine, "soak", ["memory.*"])
        store = TokenStore(rt.engine)
        tokens = []
        for n in range(count):
            user = await add_user(rt.engine, f"soak{n}@example.com", role="user")
            await grant_role(rt.engine, user.email, "soak")
            tokens.append((await store.create(f"soak-{n}", user.id))[1])
        return tokens


@asynccontextmanager
async def serve(data_dir: Path) -> AsyncIterator[tuple[str, int]]:
    env = clean_env({"MCPIST_MODULES__ENABLED": json.dumps(MODULES)})
    port = free_port()
    argv = [*mcpist_command(), "serve", "--data-dir", str(data_dir), "--port", str(port)]
    async with running(argv, port=port, log_path=data_dir / "serve.log", env=env, ready_timeout_s=120) as process:
        yield f"http://127.0.0.1:{port}/mcp", process.pid


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    sessions: int = 0


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def plan_call(rng: random.Random, namespace: str) -> tuple[str, str, dict[str, Any], str | None]:
    """(kind, meta-tool, arguments, the error code this call asks for, if any)."""
    roll = rng.random()
    if roll < 0.40:
        params = {"namespace": namespace, "query": sentence(rng, 3)}
        return "search", "call", {"module": "memory", "tool_name": "search", "params": params}, None
    if roll < 0.60:
        params = {"namespace": namespace, "content": sentence(rng, 30), "metadata": {"n": rng.randrange(100)}}
        return "save", "call", {"module": "memory", "tool_name": "save", "params": params}, None
    if roll < 0.75:
        return "schema", "get_module_schema", {"module": "memory"}, None
    if roll < 0.90:
        lines = [
            {
                "id": "a",
                "module": "memory",
                "tool": "save",
                "params": {"namespace": namespace, "content": sentence(rng, 20)},
            },
            {
                "id": "b",
                "module": "memory",
                "tool": "search",
                "after": ["a"],
                "params": {"namespace": namespace, "query": sentence(rng, 2)},
            },
            {
                "id": "c",
                "module": "memory",
                "tool": "search",
                "params": {"namespace": namespace, "metadata_filter": {"n": 1}},
            },
        ]
        return "batch", "batch", {"tasks": "\n".join(json.dumps(line) for line in lines)}, None
    params = {"namespace": namespace, "query": "x" * 5_000}
    return "refused", "call", {"module": "memory", "tool_name": "search", "params": params}, "INVALID_ARGUMENT"


async def client_loop(url: str, token: str, number: int, deadline: float, tally: Tally, seed: int) -> None:
    rng = random.Random(seed * 1000 + number)
    namespace = f"soak-{number}"
    while time.monotonic() < deadline:
        try:
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
            ):
                tally.sessions += 1
                while time.monotonic() < deadline:
                    if rng.random() < 0.05:
                        break  # end this session, open another
                    kind, tool, args, expected = plan_call(rng, namespace)
                    started = time.perf_counter()
                    try:
                        result = await client.call_tool(tool, args)
                    except Exception as exc:
                        tally.errors[f"{kind}: {type(exc).__name__}"] += 1
                        continue
                    tally.latencies_ms.append((time.perf_counter() - started) * 1000)
                    tally.kinds[kind] += 1
                    body = result.structured_content or {}
                    code = body.get("code") if result.is_error else None
                    if code != expected:
                        tally.errors[f"{kind}: {code or 'ok, expected ' + str(expected)}"] += 1
                    elif kind == "batch" and body.get("failed"):
                        tally.errors["batch: a task failed"] += 1
        except Exception as exc:  # a session that could not open or broke
            tally.errors[f"session: {type(exc).__name__}"] += 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


async def soak(opts: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="mcpist-soak-"))
    try:
        log(f"creating {opts.clients} tokens in {data_dir}")
        tokens = await create_tokens(data_dir, opts.clients)
        async with serve(data_dir) as (url, pid):
            log(f"warming up for {opts.warmup_s:g} s")
            warm = Tally()
            async with anyio.create_task_group() as tg:
                until = time.monotonic() + opts.warmup_s
                for n, token in enumerate(tokens):
                    tg.start_soon(client_loop, url, token, n, until, warm, opts.seed + 1)
            rss: list[tuple[float, float]] = [(0.0, rss_mb(pid))]
            tally = Tally()
            started = time.monotonic()
            deadline = started + opts.minutes * 60
            log(f"{opts.clients} clients for {opts.minutes:g} min; server RSS {rss[0][1]:.0f} MB")

            async def sample() -> None:
                while time.monotonic() < deadline:
                    await anyio.sleep(opts.sample_s)
                    rss.append((time.monotonic() - started, rss_mb(pid)))
                    log(f"  {rss[-1][0]:6.0f} s  RSS {rss[-1][1]:7.1f} MB  calls {len(tally.latencies_ms)}")

            async with anyio.create_task_group() as tg:
                tg.start_soon(sample)
                for n, token in enumerate(tokens):
                    tg.start_soon(client_loop, url, token, n, deadline, tally, opts.seed)
            elapsed = time.monotonic() - started
            alive = False
            async with httpx2.AsyncClient(timeout=10) as probe:
                alive = (await probe.get(url.removesuffix("/mcp") + "/health")).status_code == 200
            log_text = (data_dir / "serve.log").read_text(errors="replace")
    finally:
        if opts.keep:
            log(f"kept {data_dir} (serve.log has the server's log)")
        else:
            shutil.rmtree(data_dir, ignore_errors=True)
    calls = len(tally.latencies_ms)
    return {
        "clients": opts.clients,
        "minutes": opts.minutes,
        "calls": calls,
        "calls_per_s": round(calls / elapsed, 1),
        "sessions_opened": tally.sessions,
        "by_kind": dict(tally.kinds),
        "errors": sum(tally.errors.values()),
        "error_kinds": dict(tally.errors),
        "latency_ms": {
            "p50": round(statistics.median(tally.latencies_ms), 1) if calls else None,
            "p95": round(percentile(tally.latencies_ms, 0.95), 1),
            "p99": round(percentile(tally.latencies_ms, 0.99), 1),
            "max": round(max(tally.latencies_ms), 1) if calls else None,
        },
        "rss_mb": {
            "start": round(rss[0][1], 1),
            "peak": round(max(r for _, r in rss), 1),
            "end": round(rss[-1][1], 1),
            "samples": [(round(t), round(r, 1)) for t, r in rss],
        },
        "tracebacks_in_server_log": log_text.count("Traceback"),
        "server_alive_after": alive,
    }


def markdown(figures: dict[str, Any]) -> str:
    lat, rss = figures["latency_ms"], figures["rss_mb"]
    rows = [
        ("clients x minutes", f"{figures['clients']} x {figures['minutes']:g}"),
        (
            "calls (per second)",
            f"{figures['calls']:,} ({figures['calls_per_s']}/s), {figures['sessions_opened']} sessions",
        ),
        ("errors", f"{figures['errors']} {figures['error_kinds'] or ''}".strip()),
        ("latency p50 / p95 / p99 / max", f"{lat['p50']} / {lat['p95']} / {lat['p99']} / {lat['max']} ms"),
        ("server RSS start / peak / end", f"{rss['start']} / {rss['peak']} / {rss['end']} MB"),
        (
            "tracebacks in the server log; alive after",
            f"{figures['tracebacks_in_server_log']}; {figures['server_alive_after']}",
        ),
    ]
    return "\n".join(["| figure | measured |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--warmup-s", type=float, default=20.0)
    parser.add_argument("--sample-s", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the data directory and the server's log")
    opts = parser.parse_args()
    figures = anyio.run(soak, opts)
    print(json.dumps(figures, indent=2) if opts.json else markdown(figures))


if __name__ == "__main__":
    main()
