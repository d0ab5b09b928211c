"""The `run_script` meta-tool's engine: Starlark scripts in a warm pool of sandboxed child processes.

Independent of MCP: the protocol layer supplies a `ToolRunner` (which runs each tool call as `call`
does) and turns the result or the raised `MCPistError` into a response.

The names load lazily: the sandbox process imports `mcpist.script._worker`, and this package's
parent-side half (anyio, pydantic) would only slow its start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._guide import DESCRIPTION, GUIDE, guide
    from ._host import ScriptHost, ToolCall, ToolRunner

__all__ = ["DESCRIPTION", "GUIDE", "ScriptHost", "ToolCall", "ToolRunner", "guide"]

_HOMES = {
    "DESCRIPTION": "_guide",
    "GUIDE": "_guide",
    "guide": "_guide",
    "ScriptHost": "_host",
    "ToolCall": "_host",
    "ToolRunner": "_host",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
