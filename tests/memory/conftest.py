"""Fixtures for the memory module: a started module on a fresh database, called like the server calls it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpist.modules import Caller, ModuleResources, ToolContext
from mcpist.modules.memory import MemorySettings, module
from mcpist.modules.memory.store import MemoryState
from mcpist.modules.registry import Registry
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade

REGISTRY = Registry([module])


@dataclass
class Memory:
    """Calls tools through their validated schemas, as the protocol layer does."""

    state: MemoryState
    http: httpx.AsyncClient
    settings: MemorySettings
    calls: list[str] = field(default_factory=list)

    def ctx(self, user: str = "u1") -> ToolContext[MemorySettings]:
        return ToolContext(
            http=self.http,
            settings=self.settings,
            account=None,
            logger=logging.getLogger("test.memory"),
            caller=Caller(user, token_id=f"tok-{user}"),
            state=self.state,
            engine=self.state.engine,
        )

    async def call(self, tool: str, user: str = "u1", **params: Any) -> dict[str, Any]:
        registered = REGISTRY.tool("memory", tool)
        assert registered is not None, tool
        kwargs = registered.schema.validate(params)
        result = await registered.spec.fn(self.ctx(user), **kwargs)
        dumped: dict[str, Any] = registered.schema.dump_output(result)
        return dumped


async def start_memory(url: str, data_dir: Path, **settings: Any) -> AsyncIterator[Memory]:
    engine = create_engine(url)
    await upgrade(engine, [module.migrations] if module.migrations else [])
    cfg = MemorySettings(**settings)
    assert module.lifespan is not None
    resources = ModuleResources(engine=engine, settings=cfg, data_dir=data_dir, logger=logging.getLogger("test"))
    try:
        async with module.lifespan(resources) as state, httpx.AsyncClient() as http:
            yield Memory(state, http, cfg)
    finally:
        await engine.dispose()


@pytest.fixture
async def memory(database_url: str, tmp_path: Path) -> AsyncIterator[Memory]:
    async for m in start_memory(database_url, tmp_path):
        yield m


@pytest.fixture
async def sqlite_memory(sqlite_url: str, tmp_path: Path) -> AsyncIterator[Memory]:
    async for m in start_memory(sqlite_url, tmp_path):
        yield m
