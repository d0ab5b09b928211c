"""Context economy: `tools/list` stays small with every built-in module installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpist.modules.registry import Registry
from support import mcp_client, runtime

pytestmark = pytest.mark.anyio

LIMIT_BYTES = 2_400


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_tools_list_under_budget_with_all_builtin_modules(tmp_path: Path, mode: str) -> None:
    registry = Registry.from_entry_points()
    assert {"context"} <= set(registry.names())
    async with runtime(tmp_path, modules=list(registry)) as rt, mcp_client(rt, mode) as client:
        result = await client.list_tools()
    payload = json.dumps(
        result.model_dump(by_alias=True, mode="json", exclude_none=True), ensure_ascii=False, separators=(",", ":")
    ).encode()
    print(f"tools/list: {len(payload)} bytes with modules {registry.names()}")
    assert len(payload) < LIMIT_BYTES
    described = result.tools[0].description or ""
    for name in registry.names():
        assert f"- {name}: " in described
