"""Several processes serving one MCPist: a 2025-11-25 session whose requests alternate between two
replicas (on one PostgreSQL, behind a round-robin proxy) keeps working, server-to-client requests
included, and an elicitation completed on one replica reaches the client waiting on the other.
The same on SQLite, between two workers of one machine (unix sockets, datagram events)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.types import Receive, Scope, Send

from mcpist.cluster import Node, new_node_id, node_of
from mcpist.launch import run_dir
from mcpist.modules.api import Module, ToolContext
from mcpist.runtime import Runtime
from mcpist.web.app import create_app
from support import new_token, runtime

pytestmark = pytest.mark.anyio

relay = Module("relay", summary="Test tools for the cluster: echo, ask the client's LLM")


@relay.tool(read_only=True)
async def echo(ctx: ToolContext[Any], text: str) -> dict[str, str]:
    """Return the text."""
    return {"text": text}


@relay.tool(read_only=True)
async def ask(ctx: ToolContext[Any], prompt: str) -> dict[str, str]:
    """Ask the client's LLM (sampling): a server-to-client request inside the call."""
    assert ctx.sampler is not None
    return {"answer": await ctx.sampler.complete([{"role": "user", "content": prompt}])}


@dataclass
class Replica:
    rt: Runtime
    node: Node
    url: str


@asynccontextmanager
async def replica(data_dir: Path, database_url: str | None, unix: bool, **settings: Any) -> AsyncIterator[Replica]:
    """A runtime served as one cluster node: on TCP (a replica elsewhere) or on a unix socket (a worker)."""
    async with runtime(data_dir, modules=[relay], database_url=database_url, **settings) as rt:
        public = socket.socket()
        public.bind(("127.0.0.1", 0))
        public.listen(64)
        port = public.getsockname()[1]
        rt.settings = rt.settings.model_copy(update={"port": port})
        sockets = [public]
        node_id = new_node_id()
        if unix:
            path = run_dir(data_dir) / f"{node_id}.sock"
            own = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            own.bind(str(path))
            own.listen(64)
            sockets.append(own)
            node = Node(node_id, f"unix:{path}")
        else:
            node = Node(node_id, f"http://127.0.0.1:{port}")
        server = uvicorn.Server(uvicorn.Config(create_app(rt, node=node), log_level="warning", lifespan="on"))
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, sockets)
            while not server.started:  # noqa: ASYNC110 - uvicorn offers no event to wait on
                await anyio.sleep(0.02)
            try:
                yield Replica(rt, node, f"http://127.0.0.1:{port}")
            finally:
                server.should_exit = True


@dataclass
class RoundRobin:
    """A load balancer without affinity: each request to the next backend in turn."""

    backends: list[str]
    served: list[tuple[str, str | None]] = field(default_factory=list)
    """(backend, session id) per request."""
    _next: int = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        backend = self.backends[self._next % len(self.backends)]
        self._next += 1
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"content-length", b"connection")]
        session = dict(scope["headers"]).get(b"mcp-session-id")
        self.served.append((backend, session.decode() if session else None))
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        query = scope["query_string"].decode()
        transport = None
        if backend.startswith("unix:"):  # a worker's own socket
            transport = httpx.AsyncHTTPTransport(uds=backend.removeprefix("unix:"))
        url = ("http://worker" if transport else backend) + scope["path"] + (f"?{query}" if query else "")
        async with httpx.AsyncClient(timeout=httpx.Timeout(30, read=None), transport=transport) as client:
            request = client.build_request(scope["method"], url, headers=headers, content=body)
            response = await client.send(request, stream=True)
            try:
                hop = (b"transfer-encoding", b"connection")
                keep = [(k, v) for k, v in response.headers.raw if k.lower() not in hop]
                await send({"type": "http.response.start", "status": response.status_code, "headers": keep})
                async for chunk in response.aiter_raw():
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            finally:
                await response.aclose()


@asynccontextmanager
async def balanced(backends: list[str]) -> AsyncIterator[tuple[str, RoundRobin]]:
    balancer = RoundRobin(backends)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(balancer, log_level="warning", lifespan="off"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        try:
            yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", balancer
        finally:
            server.should_exit = True


@asynccontextmanager
async def two_replicas(
    tmp_path: Path, database_url: str | None, unix: bool, **settings: Any
) -> AsyncIterator[list[Replica]]:
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(replica(tmp_path / "a", database_url, unix, **settings))
        if database_url is None:  # SQLite: the workers of one machine share the data directory
            second_dir = tmp_path / "a"
        else:  # a replica elsewhere: its own directory, the same master key
            second_dir = tmp_path / "b"
            second_dir.mkdir(mode=0o700)
            shutil.copy2(tmp_path / "a" / "master.key", second_dir / "master.key")
        second = await stack.enter_async_context(replica(second_dir, database_url, unix, **settings))
        yield [first, second]


async def session_alternating(replicas: list[Replica]) -> None:
    token = await new_token(replicas[0].rt)
    asked: list[str] = []

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        text = params.messages[0].content
        asked.append(text.text if isinstance(text, types.TextContent) else "")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="forty-two"), model="fake"
        )

    async with (
        balanced([r.url for r in replicas]) as (url, balancer),
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy", sampling_callback=sample) as client,
    ):
        for i in range(6):
            result = await client.call_tool(
                "call", {"module": "relay", "tool_name": "echo", "params": {"text": f"hi {i}"}}
            )
            assert not result.is_error, result
            assert result.structured_content is not None
            assert result.structured_content["text"] == f"hi {i}"
        for i in range(2):
            # the sampling request goes out on the holder's stream; the client's answer is a new POST,
            # which the balancer sends to whichever replica is next
            result = await client.call_tool(
                "call", {"module": "relay", "tool_name": "ask", "params": {"prompt": f"question {i}"}}
            )
            assert not result.is_error, result
            assert result.structured_content is not None
            assert result.structured_content["answer"] == "forty-two"
        assert asked == ["question 0", "question 1"]
    sessions = {s for _, s in balancer.served if s}
    assert len(sessions) == 1, sessions
    (session,) = sessions
    holder = next(r for r in replicas if r.node.id == node_of(session))
    elsewhere = [b for b, s in balancer.served if s == session and b != holder.url]
    assert len(elsewhere) >= 4, balancer.served  # half the session's requests reached the other replica


async def elicitation_completed_elsewhere(replicas: list[Replica]) -> None:
    waiting, completing = replicas
    told = anyio.Event()

    class Session:
        async def send_elicit_complete(self, elicitation_id: str) -> None:
            assert elicitation_id == "e-42"
            told.set()

    # the bus listens once the replica's lifespan runs; an event before that would be missed
    await anyio.sleep(0.5)
    waiting.rt.elicitations.add("e-42", Session())
    assert not await completing.rt.elicitations.complete("e-42")  # nobody waits in this process
    with anyio.fail_after(10):
        await told.wait()
    assert not await waiting.rt.elicitations.complete_here("e-42")  # told once, then forgotten


async def test_a_session_alternating_between_replicas_on_postgresql(tmp_path: Path, postgres_url: str) -> None:
    async with two_replicas(tmp_path, postgres_url, unix=False) as replicas:
        await session_alternating(replicas)
        await elicitation_completed_elsewhere(replicas)


async def test_a_session_alternating_between_workers_on_sqlite(tmp_path: Path) -> None:
    async with two_replicas(tmp_path, None, unix=True) as replicas:
        await session_alternating(replicas)
        await elicitation_completed_elsewhere(replicas)


async def test_one_scrape_of_metrics_answers_for_every_worker(tmp_path: Path) -> None:
    token = "m" * 24
    async with (
        two_replicas(tmp_path, None, unix=True, observe={"metrics_token": token}) as replicas,
        httpx.AsyncClient(timeout=10) as http,
    ):
        scrape = await http.get(f"{replicas[0].url}/metrics", headers={"Authorization": f"Bearer {token}"})
        assert scrape.status_code == 200
        for r in replicas:
            assert f'node="{r.node.id}"' in scrape.text
        # one worker asking another gets that worker's own figures, unlabelled: no loop, no double count
        own = await http.get(
            f"{replicas[1].url}/metrics", headers={"Authorization": f"Bearer {token}", "X-MCPist-Forwarded": "x"}
        )
        assert own.status_code == 200 and 'node="' not in own.text
        refused = await http.get(f"{replicas[0].url}/metrics", headers={"Authorization": "Bearer wrong"})
        assert refused.status_code == 401


async def test_the_sockets_of_workers_that_died_are_removed(tmp_path: Path) -> None:
    run = run_dir(tmp_path / "a")
    stale = [run / "0123456789ab.sock", run / "0123456789ab.bus"]
    fresh = run / "ba9876543210.sock"  # a worker starting right now: its row is not there yet
    for path in [*stale, fresh]:
        path.touch()
    for path in stale:
        os.utime(path, (1, 1))
    async with two_replicas(tmp_path, None, unix=True) as replicas:
        assert not any(path.exists() for path in stale)
        assert fresh.exists()
        for r in replicas:
            assert await anyio.Path(r.node.address.removeprefix("unix:")).exists()


async def test_a_session_of_a_gone_node_is_not_found_and_nothing_is_passed_twice(tmp_path: Path) -> None:
    async with two_replicas(tmp_path, None, unix=True) as replicas:
        token = await new_token(replicas[0].rt)
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": "2025-11-25",
        }
        ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        async with httpx.AsyncClient(timeout=10) as http:
            unknown = {**headers, "Mcp-Session-Id": "0123456789ab-" + "f" * 32}
            gone = await http.post(f"{replicas[0].url}/mcp", content=ping, headers=unknown)
            assert gone.status_code == 404
            # a request already passed on once is never passed again (no loops between nodes)
            other = f"{replicas[1].node.id}-{'e' * 32}"
            looped = await http.post(
                f"{replicas[0].url}/mcp",
                content=ping,
                headers={**headers, "Mcp-Session-Id": other, "X-MCPist-Forwarded": "x"},
            )
            assert looped.status_code == 404
            # unauthenticated requests are refused before anything is passed on
            anonymous = {k: v for k, v in headers.items() if k != "Authorization"}
            anonymous["Mcp-Session-Id"] = other
            refused = await http.post(f"{replicas[0].url}/mcp", content=ping, headers=anonymous)
            assert refused.status_code == 401


def mcpist(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("mcpist")
    return [str(script) if script.exists() else "mcpist", *args]


async def live_nodes(data_dir: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(data_dir / "mcpist.db") as db:
        return [(str(a), str(b)) for a, b in db.execute("SELECT node_id, address FROM cluster_nodes ORDER BY node_id")]


async def test_serve_with_two_workers_shares_sessions_restarts_a_dead_worker_and_stops(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCPIST_")}
    created = await anyio.run_process(mcpist("token", "create", "--name", "w", "--data-dir", str(data)), env=env)
    token = created.stdout.decode().strip().splitlines()[-1]
    log = (tmp_path / "serve.log").open("wb")
    process = await anyio.open_process(
        mcpist("serve", "--data-dir", str(data), "--port", "0", "--workers", "2"), stdout=log, stderr=log, env=env
    )
    try:
        with anyio.fail_after(60):
            while len(await live_nodes(data)) < 2:
                assert process.returncode is None, (tmp_path / "serve.log").read_text()
                await anyio.sleep(0.2)
        nodes = await live_nodes(data)
        async with (
            balanced([address for _, address in nodes]) as (url, balancer),
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            for _ in range(4):
                result = await client.call_tool("get_module_schema", {"module": "memory"})
                assert not result.is_error, result
        assert len({backend for backend, session in balancer.served if session}) == 2
        # a worker that dies is started again, as a new node
        pids = [p.pid for p in psutil_children(process.pid)]
        assert len(pids) >= 2
        os.kill(pids[0], signal.SIGKILL)
        with anyio.fail_after(60):
            while True:
                ids = {node for node, _ in await live_nodes(data)}
                if len(ids - {node for node, _ in nodes}) >= 1 and len(psutil_children(process.pid)) >= 2:
                    break
                await anyio.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(30):
            await process.wait()
        assert process.returncode == 0, (tmp_path / "serve.log").read_text()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        log.close()
    text = (tmp_path / "serve.log").read_text()
    assert "(2 workers)" in text
    assert "Traceback" not in text.split("starting it again")[-1], text[-3000:]


def psutil_children(pid: int) -> list[Any]:
    """The live worker processes of `pid` (multiprocessing's resource tracker aside)."""

    @dataclass
    class Child:
        pid: int

    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z" and b"resource_tracker" not in cmdline:
            found.append(Child(int(entry.name)))
    return found
