"""An MCP client connected to MCPist in this process (no transport), acting as one caller: for tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client

from mcpist.modules.api import Caller
from mcpist.runtime import Runtime

from .server import build_server


@asynccontextmanager
async def in_process_client(runtime: Runtime, caller: Caller | None = None, **options: Any) -> AsyncIterator[Client]:
    """The SDK's client talking to `runtime`'s MCP server in memory, as `caller` (default: the owner).

    `options` go to the SDK's `Client` (`mode="2026-07-28"`, `extensions=[...]`).
    """
    who = caller or Caller(user_id=runtime.owner.id, email=runtime.owner.email)
    async with Client(build_server(runtime, lambda _ctx: who), **options) as client:
        yield client
