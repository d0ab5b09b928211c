"""Helpers to run MCPist in process: a runtime, its ASGI app, and an MCP client over HTTP."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.routing import BaseRoute

from demo_module import demo, remote
from mcpist.auth.tokens import TokenStore
from mcpist.config import load_settings
from mcpist.modules.api import Module
from mcpist.modules.registry import Registry
from mcpist.runtime import Runtime, start_runtime
from mcpist.web.app import create_app

BASE = "http://127.0.0.1:8765"


@asynccontextmanager
async def runtime(
    data_dir: Path, modules: list[Module] | None = None, database_url: str | None = None, **settings: Any
) -> AsyncIterator[Runtime]:
    # revocations and role changes must bite at once here; tests/test_ttlcache.py covers the cache
    settings.setdefault("access_cache_s", 0)
    cfg = load_settings(data_dir=data_dir, database_url=database_url, **settings)
    registry = Registry(modules if modules is not None else [demo, remote])
    async with start_runtime(cfg, registry) as rt:
        yield rt


@asynccontextmanager
async def http_client(rt: Runtime, token: str | None = None) -> AsyncIterator[httpx2.AsyncClient]:
    """An httpx2 client wired to the app in process (lifespan included)."""
    app = create_app(rt)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url=BASE, headers=headers, timeout=30
        ) as client,
    ):
        yield client


@asynccontextmanager
async def served(rt: Runtime, first_routes: Sequence[BaseRoute] = ()) -> AsyncIterator[str]:
    """The app on a real loopback socket (uvicorn in this event loop); yields the /mcp URL.

    Needed where the in-process ASGI transport falls short: it buffers whole responses,
    so a standalone SSE stream (server-initiated notifications) never arrives.
    `first_routes` go ahead of the app's own, so a test can mount a variant of one.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # listening before uvicorn starts: early connections wait in the backlog, no polling needed
    sock.listen(128)
    port = sock.getsockname()[1]
    rt.settings = rt.settings.model_copy(update={"port": port})
    app = create_app(rt)
    app.router.routes[:0] = first_routes
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True


class SseOpened(logging.Handler):
    """Sets an event when an MCP client's standalone SSE (GET) stream is up: notifications need it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.opened = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "GET SSE connection established":
            self.opened.set()


@contextmanager
def sse_watch() -> Iterator[SseOpened]:
    handler = SseOpened()
    log = logging.getLogger("mcp.client.streamable_http")
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


async def new_token(rt: Runtime, name: str = "test") -> str:
    _, token = await TokenStore(rt.engine).create(name, rt.owner.id)
    return token


@asynccontextmanager
async def mcp_client(
    rt: Runtime, mode: str = "legacy", token: str | None = None, **options: Any
) -> AsyncIterator[Client]:
    """An MCP client speaking Streamable HTTP to the app, served in this process on a loopback socket.

    Not over the in-process ASGI transport: it buffers whole responses, so the client's
    standalone SSE stream would hang in the app until cancelled.
    """
    token = token or await new_token(rt, f"t-{mode}")
    async with (
        served(rt) as url,
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, **options) as client,
    ):
        yield client
