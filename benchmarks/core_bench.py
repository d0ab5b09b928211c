"""MCPist core benchmark: the size of `tools/list`, the latency `call` adds, batch wall time.

    .venv/bin/python benchmarks/core_bench.py            # full run, about 2.5 minutes on 2 cores
    .venv/bin/python benchmarks/core_bench.py --quick    # about 45 s, noisier
    .venv/bin/python benchmarks/core_bench.py --json     # the figures as JSON instead of Markdown

Everything runs on SQLite in temporary data directories, over loopback only. Progress goes to
stderr, the report to stdout; the exit status is 1 when a goal fails.

Latency paths (a benchmark-local no-op `bench.echo` unless noted):
  a   the tool function awaited directly
  b   `Runtime.execute` with the caller's `Principal` already resolved: lookup, validation,
      context, timeout, error normalisation
  p   `Runtime.principal`: the caller's roles and rules read from the database, once per request
  c   `MetaToolHandler.run(caller, "call", ...)`: the whole meta-tool path (p, then b), without the MCP SDK
  d   an MCP SDK client over Streamable HTTP to the ASGI app in this process (httpx2.ASGITransport):
      client and server share one event loop, so d carries both sides' CPU
  a'  the built-in `context.list_sessions` (one query on an empty SQLite table) awaited directly
  e   an MCP SDK client to a real `mcpist serve` subprocess over loopback TCP, calling
      `context.list_sessions` (a subprocess cannot load the benchmark module); compared with a'

"call adds" is a path's percentile minus its baseline's at the same percentile and concurrency.
With 50 clients, 50 tasks call back to back; a no-op tool does no I/O to overlap, so the calls
queue for the CPU and per-call latency is about 50 x the CPU one call costs (Little's law).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import httpx2
import mcp_types as types
from _core_report import (
    ASPIRATION_LIST_BYTES,
    GOAL_ADDS_P50_MS,
    GOAL_ADDS_P99_MS,
    GOAL_BATCH_RATIO,
    GOAL_LIST_BYTES,
    machine,
    markdown,
)
from _measure import Call, measure, own_cpu_s, system_busy_s
from _serve import clean_env, create_token, free_port, mcpist_command, running
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcpist import batch
from mcpist.auth.tokens import TokenStore
from mcpist.cli import approx_tokens
from mcpist.config import load_settings
from mcpist.modules import Caller, Module, ToolContext
from mcpist.modules.registry import Registry
from mcpist.protocol.metatools import meta_tools
from mcpist.protocol.server import MetaToolHandler
from mcpist.runtime import Runtime, start_runtime
from mcpist.web.app import create_app

BASE = "http://127.0.0.1:8765"

MANY = 50  # concurrent clients

bench = Module("bench", summary="Benchmark tools: a no-op echo and a sleep")


@bench.tool(read_only=True)
async def echo(ctx: ToolContext[Any], text: str) -> dict[str, str]:
    """Return the text."""
    # One checkpoint, as any tool awaiting I/O has: lets concurrent calls interleave.
    await anyio.lowlevel.checkpoint()
    return {"text": text}


@bench.tool(read_only=True)
async def sleep(ctx: ToolContext[Any], ms: int) -> dict[str, int]:
    """Wait `ms` milliseconds."""
    await anyio.sleep(ms / 1000)
    return {"ms": ms}


@dataclass(frozen=True)
class Plan:
    """Calls per path: `fast_*` for a and b (microseconds each), `io_*` for the others (milliseconds)."""

    fast_one: int
    fast_many_each: int
    io_one: int
    io_many_each: int
    warmup_one: int
    warmup_many_each: int
    batch_runs: int


FULL = Plan(5_000, 100, 2_000, 30, 200, 4, 10)
QUICK = Plan(1_000, 20, 300, 8, 100, 2, 3)


@dataclass(frozen=True)
class Options:
    plan: Plan
    quick: bool
    client_mode: str
    serve: bool


_T0 = time.perf_counter()


def log(message: str) -> None:
    print(f"[core_bench {time.perf_counter() - _T0:6.1f} s] {message}", file=sys.stderr, flush=True)


def compact_json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@asynccontextmanager
async def bench_runtime(data_dir: Path, registry: Registry) -> AsyncIterator[Runtime]:
    settings = load_settings(data_dir=data_dir, database_url=f"sqlite+aiosqlite:///{data_dir / 'mcpist.db'}")
    async with start_runtime(settings, registry) as rt:
        yield rt


def owner_of(rt: Runtime) -> Caller:
    return Caller(user_id=rt.owner.id, email=rt.owner.email)


@asynccontextmanager
async def mcp_clients(http: httpx2.AsyncClient, url: str, count: int, mode: str) -> AsyncIterator[list[Client]]:
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client(streamable_http_client(url, http_client=http), mode=mode))
            for _ in range(count)
        ]
        yield clients


@asynccontextmanager
async def asgi_http(rt: Runtime) -> AsyncIterator[httpx2.AsyncClient]:
    """An httpx2 client wired to the app in process, lifespan included."""
    app = create_app(rt)
    _, token = await TokenStore(rt.engine).create(f"bench-{uuid.uuid4().hex[:8]}", rt.owner.id)
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app),
            base_url=BASE,
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        ) as http,
    ):
        yield http


def tool_result(result: types.CallToolResult) -> Any:
    if result.is_error:
        raise RuntimeError(f"tool call failed: {result.structured_content or result.content}")
    return result.structured_content


def client_call(client: Client, name: str, arguments: dict[str, Any]) -> Call:
    async def call() -> Any:
        return tool_result(await client.call_tool(name, arguments))

    return call


# 1. tools/list


def tool_dicts(tools: Sequence[types.Tool]) -> list[dict[str, Any]]:
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


def flat_tools(registry: Registry) -> list[types.Tool]:
    """Every module tool as its own MCP Tool, as a conventional server would list them."""
    out: list[types.Tool] = []
    for tool in registry.tools():
        definition = tool.definition()
        definition["name"] = f"{tool.module.name}__{tool.spec.name}"
        out.append(types.Tool.model_validate(definition))
    return out


async def tools_list_figures(rt: Runtime, opts: Options) -> dict[str, Any]:
    async with asgi_http(rt) as http, mcp_clients(http, f"{BASE}/mcp", 1, opts.client_mode) as (client,):
        listed = await client.list_tools(cache_mode="bypass")
    size = len(compact_json(tool_dicts(listed.tools)))
    flat = flat_tools(rt.registry)
    flat_size = len(compact_json(tool_dicts(flat)))
    return {
        "modules": rt.registry.names(),
        "module_tools": len(flat),
        "bytes": size,
        "tokens": approx_tokens(size),
        "per_meta_tool_bytes": {d["name"]: len(compact_json(d)) for d in tool_dicts(listed.tools)},
        "flat_bytes": flat_size,
        "flat_tokens": approx_tokens(flat_size),
        "flat_to_meta_ratio": flat_size / size,
        "goal_bytes": GOAL_LIST_BYTES,
        "aspiration_bytes": ASPIRATION_LIST_BYTES,
        "pass": size < GOAL_LIST_BYTES,
        "aspiration_met": size <= ASPIRATION_LIST_BYTES,
        "projection": unregistered_memory_projection(rt.registry),
    }


def unregistered_memory_projection(registry: Registry) -> dict[str, Any] | None:
    """`tools/list` (from `meta_tools`, not a request) if `memory`, in src/ but without an entry point, were added."""
    if "memory" in registry:
        return None
    try:
        from mcpist.modules.memory.tools import module as memory
    except Exception as exc:  # an optional extra figure: report why it is missing instead
        log(f"memory module not importable ({type(exc).__name__}: {exc}); projection skipped")
        return None
    modules = [*registry, memory]
    size = len(compact_json(tool_dicts(meta_tools([m for m in modules if m.tools], batch.DESCRIPTION))))
    flat_size = len(compact_json(tool_dicts(flat_tools(Registry(modules)))))
    return {
        "modules": sorted(m.name for m in modules),
        "bytes": size,
        "tokens": approx_tokens(size),
        "flat_bytes": flat_size,
        "flat_tokens": approx_tokens(flat_size),
    }


# 2. latency


async def latency_in_process(rt: Runtime, opts: Options) -> dict[str, dict[str, Any]]:
    plan = opts.plan
    caller = owner_of(rt)
    found = rt.registry.tool("bench", "echo")
    assert found is not None
    ctx = rt.context(caller, found.module, None, None)
    handler = MetaToolHandler(rt)
    fn = found.spec.fn
    params = {"text": "hello"}
    args = {"module": "bench", "tool_name": "echo", "params": params}

    def direct() -> Awaitable[Any]:
        return fn(ctx, text="hello")

    principal = await rt.principal(caller)

    def execute() -> Awaitable[Any]:
        return rt.execute(principal, "bench", "echo", params)

    def resolve() -> Awaitable[Any]:
        return rt.principal(caller)

    async def meta() -> Any:
        return tool_result(await handler.run(caller, "call", args, None))

    assert await execute() == await meta() == {"text": "hello"}
    paths: dict[str, dict[str, Any]] = {}
    for label, call, one_n, many_n in (
        ("a", direct, plan.fast_one, plan.fast_many_each),
        ("b", execute, plan.fast_one, plan.fast_many_each),
        ("p", resolve, plan.io_one, plan.io_many_each),
        ("c", meta, plan.io_one, plan.io_many_each),
    ):
        log(f"latency {label}: 1 client x {one_n}, {MANY} clients x {many_n}")
        paths[label] = {
            "1": await measure([call], one_n, plan.warmup_one),
            "50": await measure([call] * MANY, many_n, plan.warmup_many_each),
        }

    url = f"{BASE}/mcp"
    async with asgi_http(rt) as http:
        log(f"latency d: 1 client x {plan.io_one}")
        async with mcp_clients(http, url, 1, opts.client_mode) as (client,):
            call = client_call(client, "call", args)
            assert await call() == {"text": "hello"}
            one = await measure([call], plan.io_one, plan.warmup_one)
        log(f"latency d: {MANY} clients x {plan.io_many_each}")
        async with mcp_clients(http, url, MANY, opts.client_mode) as clients:
            calls = [client_call(c, "call", args) for c in clients]
            many = await measure(calls, plan.io_many_each, plan.warmup_many_each)
    paths["d"] = {"1": one, "50": many}
    return paths


@dataclass(frozen=True)
class Served:
    url: str
    token: str
    pid: int
    log: Path


@asynccontextmanager
async def serve_subprocess(data_dir: Path) -> AsyncIterator[Served]:
    """`mcpist serve` (default settings) on a free loopback port with its own data dir and token."""
    env = clean_env()
    token = await create_token(data_dir, env)
    port = free_port()
    log_path = data_dir / "serve.log"
    argv = [*mcpist_command(), "serve", "--data-dir", str(data_dir), "--port", str(port)]
    async with running(argv, port=port, log_path=log_path, env=env, stop_timeout_s=10) as process:
        yield Served(f"http://127.0.0.1:{port}/mcp", token, process.pid, log_path)


async def latency_subprocess(rt: Runtime, data_dir: Path, opts: Options) -> tuple[dict[str, Any], dict[str, int]]:
    """Paths a' and e, and what the server's log holds afterwards."""
    plan = opts.plan
    found = rt.registry.tool("context", "list_sessions")
    assert found is not None
    ctx = rt.context(owner_of(rt), found.module, None, None)
    fn = found.spec.fn

    def direct() -> Awaitable[Any]:
        return fn(ctx)

    log(f"latency a': 1 client x {plan.io_one}, {MANY} clients x {plan.io_many_each}")
    paths: dict[str, Any] = {
        "a'": {
            "1": await measure([direct], plan.io_one, plan.warmup_one),
            "50": await measure([direct] * MANY, plan.io_many_each, plan.warmup_many_each),
        }
    }
    args = {"module": "context", "tool_name": "list_sessions", "params": {}}
    async with serve_subprocess(data_dir) as served:
        limits = httpx2.Limits(max_connections=4 * MANY, max_keepalive_connections=4 * MANY)
        headers = {"Authorization": f"Bearer {served.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=120, limits=limits) as http:
            log(f"latency e: 1 client x {plan.io_one}")
            async with mcp_clients(http, served.url, 1, opts.client_mode) as (client,):
                call = client_call(client, "call", args)
                assert "sessions" in await call()
                one = await measure([call], plan.io_one, plan.warmup_one, served.pid)
            log(f"latency e: {MANY} clients x {plan.io_many_each}")
            async with mcp_clients(http, served.url, MANY, opts.client_mode) as clients:
                calls = [client_call(c, "call", args) for c in clients]
                many = await measure(calls, plan.io_many_each, plan.warmup_many_each, served.pid)
    paths["e"] = {"1": one, "50": many}
    text = served.log.read_text(errors="replace")
    server_log = {
        "mcp_requests": len(re.findall(r'"(?:POST|GET|DELETE) /mcp HTTP', text)),
        "problem_lines": len(re.findall(r"Traceback|\bERROR\b|\bWARNING\b|Task was destroyed", text)),
    }
    return paths, server_log


def call_adds(paths: dict[str, dict[str, Any]], path: str, base: str, label: str) -> list[dict[str, Any]]:
    rows = []
    for level in ("1", "50"):
        p50 = paths[path][level]["p50_ms"] - paths[base][level]["p50_ms"]
        p99 = paths[path][level]["p99_ms"] - paths[base][level]["p99_ms"]
        rows.append(
            {
                "path": path,
                "baseline": base,
                "label": label,
                "clients": int(level),
                "adds_p50_ms": p50,
                "adds_p99_ms": p99,
                "pass": p50 <= GOAL_ADDS_P50_MS and p99 <= GOAL_ADDS_P99_MS,
            }
        )
    return rows


# 3. batch


@dataclass(frozen=True)
class Shape:
    """`levels` x `width` sleep tasks; each task waits for every task of the level before it."""

    name: str
    levels: int
    width: int
    ms: int

    @property
    def tasks(self) -> int:
        return self.levels * self.width

    @property
    def critical_ms(self) -> float:
        return float(self.levels * self.ms)

    def describe(self) -> str:
        if self.levels == 1:
            return f"{self.width} independent tasks x {self.ms} ms"
        return f"{self.levels} levels x {self.width} wide x {self.ms} ms, chained"

    def jsonl(self) -> str:
        lines = []
        for level in range(self.levels):
            for i in range(self.width):
                task: dict[str, Any] = {"id": f"l{level}_{i}", "module": "bench", "tool": "sleep"}
                task["params"] = {"ms": self.ms}
                if level:
                    task["after"] = [f"l{level - 1}_{j}" for j in range(self.width)]
                if level == self.levels - 1:
                    task["output"] = True
                lines.append(json.dumps(task))
        return "\n".join(lines)


SHAPES = (Shape("parallel", 1, 20, 100), Shape("chained", 5, 4, 50))


async def plain_anyio(shape: Shape) -> None:
    """The same DAG with bare anyio sleeps: what the event loop's timers alone cost."""
    for _ in range(shape.levels):
        async with anyio.create_task_group() as tg:
            for _ in range(shape.width):
                tg.start_soon(anyio.sleep, shape.ms / 1000)


async def walls_ms(run: Callable[[], Awaitable[Any]], runs: int) -> list[float]:
    await run()
    out = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        await run()
        out.append((time.perf_counter_ns() - start) / 1e6)
    return out


async def batch_figures(rt: Runtime, opts: Options) -> list[dict[str, Any]]:
    caller = owner_of(rt)
    handler = MetaToolHandler(rt)
    rows: list[dict[str, Any]] = []
    async with asgi_http(rt) as http, mcp_clients(http, f"{BASE}/mcp", 1, opts.client_mode) as (client,):

        async def via_handler(text: str) -> Any:
            return tool_result(await handler.run(caller, "batch", {"tasks": text}, None))

        async def via_client(text: str) -> Any:
            return tool_result(await client.call_tool("batch", {"tasks": text}))

        for shape in SHAPES:
            log(f"batch {shape.name}: plain anyio, then c and d, {opts.plan.batch_runs} runs each")
            floor = statistics.median(await walls_ms(partial(plain_anyio, shape), opts.plan.batch_runs))
            text = shape.jsonl()
            for path, run in (("c", via_handler), ("d", via_client)):
                answer = await run(text)
                if answer["summary"]["succeeded"] != shape.tasks:
                    raise RuntimeError(f"batch {shape.name} did not fully succeed: {answer['summary']}")
                walls = await walls_ms(partial(run, text), opts.plan.batch_runs)
                median = statistics.median(walls)
                rows.append(
                    {
                        "batch": shape.name,
                        "shape": shape.describe(),
                        "path": path,
                        "runs": len(walls),
                        "critical_ms": shape.critical_ms,
                        "plain_anyio_ms": floor,
                        "median_ms": median,
                        "max_ms": max(walls),
                        "ratio": median / shape.critical_ms,
                        "max_ratio": max(walls) / shape.critical_ms,
                        "pass": median / shape.critical_ms <= GOAL_BATCH_RATIO,
                    }
                )
    return rows


async def run(opts: Options, tmp: Path) -> dict[str, Any]:
    started = time.perf_counter()
    busy_before, own_before = system_busy_s(), own_cpu_s()
    report: dict[str, Any] = {"machine": machine(), "quick": opts.quick, "client_mode": opts.client_mode}
    latency: dict[str, dict[str, Any]] = {}
    log("1. tools/list with the installed modules")
    async with bench_runtime(tmp / "installed", Registry.from_entry_points()) as rt:
        report["tools_list"] = await tools_list_figures(rt, opts)
        subprocess_paths: dict[str, Any] = {}
        if opts.serve:
            subprocess_paths, report["serve_log"] = await latency_subprocess(rt, tmp / "serve", opts)
    log("2. latency with the benchmark module")
    async with bench_runtime(tmp / "bench", Registry([bench])) as rt:
        latency.update(await latency_in_process(rt, opts))
        latency.update(subprocess_paths)
        log("3. batch")
        report["batch"] = await batch_figures(rt, opts)
    report["latency"] = latency
    adds = call_adds(latency, "c", "a", "meta-tool path") + call_adds(latency, "d", "a", "MCP client in process")
    if opts.serve:
        adds += call_adds(latency, "e", "a'", "real `mcpist serve`")
    report["call_adds"] = adds
    report["machine"]["load_after"] = round(os.getloadavg()[0], 2)
    report["elapsed_s"] = time.perf_counter() - started
    busy_after = system_busy_s()
    if busy_before is not None and busy_after is not None:
        others = busy_after - busy_before - (own_cpu_s() - own_before)
        report["machine"]["others_cpu_share"] = round(
            max(0.0, others) / (report["elapsed_s"] * (os.cpu_count() or 1)), 3
        )
    report["all_pass"] = (
        report["tools_list"]["pass"] and all(r["pass"] for r in adds) and all(r["pass"] for r in report["batch"])
    )
    log(f"done in {report['elapsed_s']:.0f} s")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description="MCPist core benchmark (see the module docstring).")
    parser.add_argument("--quick", action="store_true", help="fewer iterations, about 45 s")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-serve", action="store_true", help="skip the `mcpist serve` subprocess (a', e)")
    parser.add_argument("--client-mode", default="legacy", help="MCP client mode: legacy (default) or 2026-07-28")
    args = parser.parse_args()
    opts = Options(QUICK if args.quick else FULL, args.quick, args.client_mode, not args.no_serve)
    with tempfile.TemporaryDirectory(prefix="mcpist-bench-") as tmp:
        report = anyio.run(run, opts, Path(tmp))
    print(json.dumps(report, indent=2) if args.json else markdown(report))
    return 0 if report["all_pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
