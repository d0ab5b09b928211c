"""Fixtures for module `context`: a migrated database and ToolContexts built by hand."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.modules import Caller, ModuleResources, Sampler, ToolContext
from mcpist.modules.context import ContextSettings, ContextState, module
from mcpist.modules.registry import Registry
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade
from mcpist.upstream import ServiceClient


class Clock:
    """A clock the tests move by hand, so expiry needs no sleeping."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


def _no_network(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"unexpected HTTP request to {request.url}")


MakeCtx = Callable[..., ToolContext[ContextSettings]]


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    eng = create_engine(database_url)
    assert module.migrations is not None
    await upgrade(eng, [module.migrations])
    yield eng
    await eng.dispose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def state(engine: AsyncEngine, clock: Clock, tmp_path: Path) -> AsyncIterator[ContextState]:
    assert module.lifespan is not None
    resources = ModuleResources(engine, ContextSettings(), tmp_path, logging.getLogger("test.context"))
    async with module.lifespan(resources) as started:
        assert isinstance(started, ContextState)
        yield replace(started, clock=clock)


@pytest.fixture
async def make_ctx(engine: AsyncEngine, state: ContextState) -> AsyncIterator[MakeCtx]:
    clients: list[ServiceClient] = []

    def make(
        user: str = "u1",
        *,
        settings: ContextSettings | None = None,
        handler: Callable[[httpx.Request], Any] | None = None,
        sampler: Sampler | None = None,
    ) -> ToolContext[ContextSettings, ContextState]:
        http = ServiceClient("context", "", transport=httpx.MockTransport(handler or _no_network), tries=1)
        clients.append(http)
        return ToolContext(
            http=http,
            settings=settings or ContextSettings(),
            account=None,
            logger=logging.getLogger("test.context"),
            caller=Caller(user),
            state=state,
            engine=engine,
            sampler=sampler,
        )

    yield make
    for client in clients:
        await client.aclose()


@pytest.fixture
def ctx(make_ctx: MakeCtx) -> ToolContext[ContextSettings, ContextState]:
    return make_ctx()


Call = Callable[..., Any]


@pytest.fixture(scope="session")
def registry() -> Registry:
    return Registry([module])


@pytest.fixture
def call(registry: Registry) -> Call:
    """Call a tool as the server does: validate the params against its schema, dump the result as JSON."""

    async def run(ctx: ToolContext[ContextSettings], tool: str, **params: Any) -> Any:
        registered = registry.tool("context", tool)
        assert registered is not None, tool
        kwargs = registered.schema.validate(params)
        return registered.schema.dump_output(await registered.spec.fn(ctx, **kwargs))

    return run
