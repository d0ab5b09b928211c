"""Server CPU per call and calls/s: MCPist against a bare server on the same MCP SDK, same load, same run.

    .venv/bin/python benchmarks/throughput_bench.py            # about 4 minutes on 2 cores
    .venv/bin/python benchmarks/throughput_bench.py --quick    # about 1.5 minutes, noisier
    .venv/bin/python benchmarks/throughput_bench.py --json     # the figures as JSON

Servers under test, each a subprocess on loopback:
  mcpist   `mcpist serve` (SQLite, default settings, bearer token) with a benchmark-only no-op tool
           `bench.echo`, called through the `call` meta-tool
  bare     a server built on the same SDK (`Server` + `StreamableHTTPSessionManager` + uvicorn, SDK
           defaults, no authentication), whose only tool is the same no-op `echo`

Load: a raw HTTP/1.1 generator in this process (uvloop, keep-alive, one connection per client,
requests captured once from the SDK's own client and replayed), 50 clients calling back to back.
Both protocol revisions: 2026-07-28 (stateless: one POST per call) and 2025-11-25 (each client
opens a session with `initialize`, then calls in it).

Figures:
  cpu/call   the server's CPU time (user + system, all its processes) over a round, divided by the
             calls in the round: what one call costs the server, independent of the load generator
  calls/s    calls completed per second of wall time in the round
  p50/p99    per-call latency as the clients see it

Part 1 pins each server to CPU 0 and the generator to CPU 1; rounds of mcpist and bare are
interleaved and repeated, and the ratio is taken per round pair (medians reported), so drift in
the machine's speed cancels. Part 2 runs `mcpist serve --workers 1` and `--workers 2` unpinned
(the generator shares the cores) and compares calls/s, interleaved the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _wrk
from _serve import clean_env, create_token, free_port, running
from _wrk import JSONRPC_ID

ROOT = Path(__file__).resolve().parent
CLIENTS = 50
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
_BENCH_ENV = "MCPIST_THROUGHPUT_BENCH_MODULE"


# ---------------------------------------------------------------------------------------------
# the servers (run as `throughput_bench.py _serve-mcpist ...` / `_serve-bare ...`)


if os.environ.get(_BENCH_ENV) == "1":
    # set for the `mcpist serve` under test: its worker processes import this file again (spawn)
    import anyio.lowlevel

    from mcpist.modules.api import Module, ToolContext
    from mcpist.modules.registry import Registry

    bench = Module("bench", summary="Benchmark tools: a no-op echo")

    @bench.tool(read_only=True)
    async def echo(ctx: ToolContext[Any], text: str) -> dict[str, str]:
        """Return the text."""
        await anyio.lowlevel.checkpoint()
        return {"text": text}

    _original = Registry.from_entry_points.__func__  # type: ignore[attr-defined]

    def _with_bench(cls: type[Registry], *args: Any, **kwargs: Any) -> Registry:
        registry: Registry = _original(cls, *args, **kwargs)
        registry.add(bench)
        return registry

    Registry.from_entry_points = classmethod(_with_bench)  # type: ignore[method-assign,assignment]


def serve_bare(port: int) -> None:
    import anyio.lowlevel
    import mcp_types as types
    import uvicorn
    from mcp.server import Server
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Route

    tool = types.Tool(
        name="echo",
        description="Return the text.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        await anyio.lowlevel.checkpoint()
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps({"text": text}))])

    server: Server[Any] = Server("bare", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    manager = StreamableHTTPSessionManager(app=server)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    app = Starlette(routes=[Route("/mcp", StreamableHTTPASGIApp(manager))], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# ---------------------------------------------------------------------------------------------
# process helpers


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of `pid` and every live process descended from it."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += times.get(current, 0.0)
        todo += children.get(current, [])
    return total


async def settle(pid: int, timeout_s: float = 120) -> None:
    """Wait until the server is idle (under 2% of a core for a second): models loaded, caches warm."""
    deadline = time.monotonic() + timeout_s
    before = tree_cpu_s(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(1)
        now = tree_cpu_s(pid)
        if now - before < 0.02:
            return
        before = now


@dataclass
class Served:
    name: str
    url: str
    token: str | None
    process: asyncio.subprocess.Process


def mcpist_env() -> dict[str, str]:
    return clean_env({_BENCH_ENV: "1"})


@asynccontextmanager
async def start(
    name: str, argv: list[str], url: str, token: str | None, cpus: set[int] | None
) -> AsyncIterator[Served]:
    def pin() -> None:
        if cpus is not None:
            os.sched_setaffinity(0, cpus)

    port = int(url.split("//")[1].split("/")[0].split(":")[1])
    log_path = Path(tempfile.gettempdir()) / f"throughput_{name}.log"
    # the bare server has no /health: ready once it accepts connections
    async with running(
        argv, port=port, log_path=log_path, env=mcpist_env(), ready_path=None, preexec_fn=pin
    ) as process:
        await settle(process.pid)
        yield Served(name, url, token, process)


# ---------------------------------------------------------------------------------------------
# capturing real requests once


@dataclass(frozen=True)
class Captured:
    method: str
    headers: list[tuple[str, str]]
    body: bytes


async def capture(url: str, token: str | None, mode: str, tool: str, arguments: dict[str, Any]) -> list[Captured]:
    """The HTTP requests the SDK's client sends to open (legacy) and make one tools/call."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    seen: list[Captured] = []

    async def record(request: httpx2.Request) -> None:
        if request.method == "POST":
            body = request.read()
            keep = [(k, v) for k, v in request.headers.items() if k.lower() not in ("host", "content-length")]
            seen.append(Captured(request.method, keep, body))

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, event_hooks={"request": [record]}) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        result = await client.call_tool(tool, arguments)
        if result.is_error:
            raise RuntimeError(f"the captured call failed: {result}")
    call = next(c for c in reversed(seen) if b'"tools/call"' in c.body)
    if mode == "legacy":
        opening = [c for c in seen if b'"initialize"' in c.body or b'"notifications/initialized"' in c.body]
        return [*opening[:2], call]
    return [call]


# ---------------------------------------------------------------------------------------------
# the raw load generator


def request_bytes(target: str, captured: Captured, session: str | None, request_id: int | None) -> bytes:
    body = captured.body
    if request_id is not None:
        body = JSONRPC_ID.sub(b'"id":%d' % request_id, body, count=1)
    lines = [f"POST {target} HTTP/1.1", f"Host: {HOSTPORT}", f"Content-Length: {len(body)}"]
    for key, value in captured.headers:
        if key.lower() == "mcp-session-id":
            continue
        lines.append(f"{key}: {value}")
    if session:
        lines.append(f"Mcp-Session-Id: {session}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


HOSTPORT = ""


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split()[1])
    headers = {}
    for line in header_lines:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
        body = b"".join(parts)
    else:
        body = b""
    return status, headers, body


@dataclass
class Round:
    calls: int
    errors: int
    wall_s: float
    cpu_s: float
    p50_ms: float
    p99_ms: float

    @classmethod
    def of(cls, calls: int, errors: int, wall_s: float, cpu_s: float, latencies_ms: list[float]) -> Round:
        """A round whose percentiles come from each call's latency as this script measured it."""
        ordered = sorted(latencies_ms)
        p50 = ordered[len(ordered) // 2] if ordered else 0.0
        p99 = ordered[int(len(ordered) * 0.99)] if ordered else 0.0
        return cls(calls, errors, wall_s, cpu_s, p50, p99)

    def figures(self) -> dict[str, float]:
        return {
            "calls": self.calls,
            "errors": self.errors,
            "calls_per_s": round(self.calls / self.wall_s, 1),
            "cpu_ms_per_call": round(1000 * self.cpu_s / max(1, self.calls), 3),
            "p50_ms": round(self.p50_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
        }


async def client_loop(
    host: str, port: int, path: str, flow: list[Captured], calls: int, latencies: list[float], failures: list[str]
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        session = None
        for opening in flow[:-1]:
            writer.write(request_bytes(path, opening, session, 1 if b'"id"' in opening.body else None))
            status, headers, body = await read_response(reader)
            if status >= 300:
                failures.append(f"opening {status} {body[:200]!r}")
                return
            session = session or headers.get("mcp-session-id")
        call = flow[-1]
        for i in range(calls):
            payload = request_bytes(path, call, session, 10 + i)
            began = time.perf_counter()
            writer.write(payload)
            status, _, body = await read_response(reader)
            latencies.append(1000 * (time.perf_counter() - began))
            if status != 200 or b'"result"' not in body or b'"isError":true' in body:
                failures.append(f"{status} {body[:200]!r}")
    finally:
        writer.close()


async def load(served: Served, flow: list[Captured], clients: int, each: int) -> Round:
    global HOSTPORT
    host, port = served.url.split("//")[1].split("/")[0].split(":")
    HOSTPORT = f"{host}:{port}"
    path = "/" + served.url.split("//")[1].split("/", 1)[1]
    latencies: list[float] = []
    failures: list[str] = []
    cpu0 = tree_cpu_s(served.process.pid)
    t0 = time.perf_counter()
    await asyncio.gather(*(client_loop(host, int(port), path, flow, each, latencies, failures) for _ in range(clients)))
    wall = time.perf_counter() - t0
    cpu = tree_cpu_s(served.process.pid) - cpu0
    if failures:
        print(f"  {served.name}: {len(failures)} failures, e.g. {failures[0]}", file=sys.stderr)
    return Round.of(len(latencies), len(failures), wall, cpu, latencies)


# ---------------------------------------------------------------------------------------------
# the run


def mcpist_argv(data_dir: Path, port: int, workers: int) -> list[str]:
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "_serve-mcpist",
        str(data_dir),
        str(port),
        str(workers),
    ]


async def new_token(data_dir: Path) -> str:
    return await create_token(data_dir, mcpist_env(), f"bench-{time.time_ns()}")


async def part_one(tmp: Path, rounds: int, each: int) -> dict[str, Any]:
    """MCPist vs bare, each pinned to CPU 0, the generator on CPU 1."""
    os.sched_setaffinity(0, {1})
    data_dir = tmp / "one"
    token = await new_token(data_dir)
    results: dict[str, Any] = {}
    mport, bport = free_port(), free_port()
    async with (
        start("mcpist", mcpist_argv(data_dir, mport, 1), f"http://127.0.0.1:{mport}/mcp", token, {0}) as mcpist,
        start(
            "bare", [sys.executable, __file__, "_serve-bare", str(bport)], f"http://127.0.0.1:{bport}/mcp", None, {0}
        ) as bare,
    ):
        for revision, mode in ((MODERN, MODERN), (LEGACY, "legacy")):
            flows = {
                "mcpist": await capture(
                    mcpist.url, token, mode, "call", {"module": "bench", "tool_name": "echo", "params": {"text": "hi"}}
                ),
                "bare": await capture(bare.url, None, mode, "echo", {"text": "hi"}),
            }
            per: dict[str, list[dict[str, float]]] = {"mcpist": [], "bare": []}
            ratios = []
            for _ in range(2):  # warm up both
                for served in (mcpist, bare):
                    await load(served, flows[served.name], CLIENTS, max(5, each // 5))
            for r in range(rounds):
                order = (mcpist, bare) if r % 2 == 0 else (bare, mcpist)
                got = {}
                for served in order:
                    got[served.name] = (await load(served, flows[served.name], CLIENTS, each)).figures()
                    per[served.name].append(got[served.name])
                ratios.append(got["mcpist"]["cpu_ms_per_call"] / got["bare"]["cpu_ms_per_call"])
                print(
                    f"  {revision} round {r + 1}: mcpist {got['mcpist']} | bare {got['bare']}",
                    file=sys.stderr,
                )
            results[revision] = {
                name: {key: statistics.median(f[key] for f in figures) for key in figures[0]}
                for name, figures in per.items()
            }
            results[revision]["cpu_ratio_median"] = round(statistics.median(ratios), 3)
            results[revision]["cpu_ratios"] = [round(x, 3) for x in ratios]
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    return results


async def wrk_round(served: Served, flow: list[Captured], seconds: float) -> Round:
    """One round driven by wrk: calls, server CPU and wall time, latency percentiles from wrk."""
    path = "/" + served.url.split("//")[1].split("/", 1)[1]
    call = flow[-1]
    cpu0 = tree_cpu_s(served.process.pid)
    got = await _wrk.run(served.url, path, call.headers, call.body, [c.body for c in flow[:-1]], CLIENTS, seconds)
    cpu = tree_cpu_s(served.process.pid) - cpu0
    return Round(got.requests, got.errors, got.wall_s, cpu, got.p50_ms, got.p99_ms)  # percentiles as wrk measured them


async def part_two(tmp: Path, rounds: int, each: int, use_wrk: bool) -> dict[str, Any]:
    """`--workers 1` against `--workers 2`, unpinned, 2026-07-28 and 2025-11-25 alternating servers."""
    data_dir = tmp / "two"
    token = await new_token(data_dir)
    results: dict[str, Any] = {"generator": "wrk" if use_wrk else "python"}
    p1, p2 = free_port(), free_port()
    seconds = max(3.0, each / 12)

    async def measure(served: Served, flow: list[Captured], calls: int) -> Round:
        if use_wrk:
            return await wrk_round(served, flow, seconds)
        return await load(served, flow, CLIENTS, calls)

    async with (
        start("workers1", mcpist_argv(data_dir, p1, 1), f"http://127.0.0.1:{p1}/mcp", token, None) as one,
        start("workers2", mcpist_argv(data_dir, p2, 2), f"http://127.0.0.1:{p2}/mcp", token, None) as two,
    ):
        for revision, mode in ((MODERN, MODERN), (LEGACY, "legacy")):
            arguments = {"module": "bench", "tool_name": "echo", "params": {"text": "hi"}}
            flow = await capture(one.url, token, mode, "call", arguments)
            per: dict[str, list[dict[str, float]]] = {"workers1": [], "workers2": []}
            ratios = []
            for served in (one, two):
                await load(served, flow, CLIENTS, max(5, each // 5))
            for r in range(rounds):
                order = (one, two) if r % 2 == 0 else (two, one)
                got = {}
                for served in order:
                    got[served.name] = (await measure(served, flow, each)).figures()
                    per[served.name].append(got[served.name])
                ratios.append(got["workers2"]["calls_per_s"] / got["workers1"]["calls_per_s"])
                print(f"  {revision} round {r + 1}: 1 {got['workers1']} | 2 {got['workers2']}", file=sys.stderr)
            results[revision] = {
                name: {key: statistics.median(f[key] for f in figures) for key in figures[0]}
                for name, figures in per.items()
            }
            results[revision]["throughput_ratio_median"] = round(statistics.median(ratios), 3)
    return results


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"Throughput, {report['machine']} ({CLIENTS} clients, no-op tool, loopback)",
        "",
        "| revision | server | CPU ms/call | calls/s | p50 ms | p99 ms | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    for revision, row in report["one"].items():
        for name in ("mcpist", "bare"):
            f = row[name]
            lines.append(
                f"| {revision} | {name} (1 core) | {f['cpu_ms_per_call']:.3f} | {f['calls_per_s']:.0f} | "
                f"{f['p50_ms']:.1f} | {f['p99_ms']:.1f} | {f['errors']:.0f} |"
            )
        lines.append(f"| {revision} | **mcpist / bare CPU** | **{row['cpu_ratio_median']:.2f}x** | | | | |")
    two = dict(report.get("two", {}))
    generator = two.pop("generator", "python")
    for revision, row in two.items():
        for name in ("workers1", "workers2"):
            f = row[name]
            lines.append(
                f"| {revision} | mcpist --workers {name[-1]} | {f['cpu_ms_per_call']:.3f} | {f['calls_per_s']:.0f} | "
                f"{f['p50_ms']:.1f} | {f['p99_ms']:.1f} | {f['errors']:.0f} |"
            )
        lines.append(f"| {revision} | **2 workers / 1** | | **{row['throughput_ratio_median']:.2f}x** | | | |")
    if two:
        lines.append(f"\nWorkers measured with the {generator} load generator (sharing the two cores).")
    return "\n".join(lines)


async def run(opts: argparse.Namespace) -> dict[str, Any]:
    rounds, each = (3, 40) if opts.quick else (5, 120)
    with tempfile.TemporaryDirectory(prefix="mcpist-throughput-") as tmp:
        report: dict[str, Any] = {"machine": f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"}
        report["one"] = {}
        if not opts.no_bare:
            print("part 1: mcpist vs bare SDK server, one core each", file=sys.stderr)
            report["one"] = await part_one(Path(tmp), rounds, each)
        if not opts.no_workers:
            print("part 2: --workers 2 vs --workers 1", file=sys.stderr)
            use_wrk = opts.generator == "wrk" or (opts.generator == "auto" and _wrk.available() is not None)
            if use_wrk and _wrk.available() is None:
                raise SystemExit("--generator wrk: wrk is not installed (apt-get install -y wrk)")
            report["two"] = await part_two(Path(tmp), rounds, each, use_wrk)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "_serve-bare":
        serve_bare(int(args[1]))
        return 0
    if args and args[0] == "_serve-mcpist":
        from mcpist.cli import main as mcpist_main

        data_dir, port, workers = args[1:4]
        serve = ["serve", "--data-dir", data_dir, "--port", port]
        return mcpist_main([*serve, "--workers", workers] if workers != "1" else serve)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-workers", action="store_true", help="skip part 2 (--workers 2 vs 1)")
    parser.add_argument("--no-bare", action="store_true", help="skip part 1 (mcpist vs the bare SDK server)")
    parser.add_argument(
        "--generator",
        choices=("auto", "wrk", "python"),
        default="auto",
        help="load for part 2: wrk (C, a few µs per call) when installed, else this script's own",
    )
    opts = parser.parse_args(args)
    try:
        import uvloop

        runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:
        runner = asyncio.Runner()
    with runner:
        report = runner.run(run(opts))
    print(json.dumps(report, indent=2) if opts.json else markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
