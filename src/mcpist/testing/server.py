"""MCPist running in the test's process with the modules under test, and an MCP client for it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from mcpist.config import load_settings
from mcpist.modules.api import Module
from mcpist.modules.registry import Registry
from mcpist.protocol.inprocess import in_process_client
from mcpist.runtime import Runtime, start_runtime

__all__ = ["in_process_client", "running"]


@asynccontextmanager
async def running(
    modules: Sequence[Module],
    data_dir: Path,
    /,
    *,
    upstream: httpx.AsyncBaseTransport | None = None,
    **settings: Any,
) -> AsyncIterator[Runtime]:
    """A started runtime (SQLite in `data_dir`, migrations applied) serving only `modules`.

    `upstream` replaces the connection pool every module's HTTP client sends through (e.g. a
    `FakeUpstream(...).transport()`); `settings` are MCPist settings (`modules={"settings": {...}}`).

    Raises:
        ConfigError: a setting is invalid.
    """
    settings.setdefault("access_cache_s", 0)
    cfg = load_settings(data_dir=data_dir, **settings)
    async with start_runtime(cfg, Registry(modules), transport=upstream) as runtime:
        yield runtime
