"""Fixtures for module `notion`: a seeded fake workspace, checked against Notion's API description."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_notion import FakeNotion
from notion_seed import TOKEN, Call, Seed, seed

from mcpist.modules import ToolContext
from mcpist.modules.notion import module
from mcpist.modules.registry import Registry
from mcpist.testing import FakeCredentials, FakeUpstream, call_tool, tool_context


@pytest.fixture
def world() -> FakeNotion:
    return FakeNotion()


@pytest.fixture
def seeded(world: FakeNotion) -> Seed:
    return seed(world)


@pytest.fixture
def api(world: FakeNotion, seeded: Seed) -> Iterator[FakeUpstream]:
    """The fake workspace behind Notion's API description: any request or reply it does not allow fails the test."""
    with world.fake() as fake:
        yield fake


@pytest.fixture
def ctx(api: FakeUpstream) -> ToolContext[Any, Any]:
    return tool_context(module, transport=api.transport(), credentials=FakeCredentials(TOKEN))


@pytest.fixture(scope="session")
def registry() -> Registry:
    return Registry([module])


@pytest.fixture
def call() -> Call:
    """Call a tool as the server does: params checked against its input schema, the result dumped as JSON."""

    async def run(ctx: ToolContext[Any, Any], tool: str, **params: Any) -> Any:
        return await call_tool(module, ctx, tool, params, dump=True)

    return run
