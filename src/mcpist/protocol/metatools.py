"""The meta-tools `tools/list` shows: their schemas and per-caller descriptions."""

from __future__ import annotations

import functools
from typing import Any

import mcp_types as types
from mcp.shared.inbound import X_MCP_HEADER_KEY

from mcpist.modules.api import Module

GET_MODULE_SCHEMA = "get_module_schema"
CALL = "call"
BATCH = "batch"
RUN_SCRIPT = "run_script"
SCRIPT_GUIDE = "script"
"""The name `get_module_schema` answers with the script guide (as "batch" gives the batch guide)."""
META_TOOLS = (GET_MODULE_SCHEMA, CALL, BATCH, RUN_SCRIPT)

_MODULE_PROP = {"type": "string"}
# may run long: a client may ask for a task and collect the result later (2025-11-25 tasks)
_LONG = types.ToolExecution(task_support="optional")


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def meta_tools(modules: list[Module], batch_description: str, script_description: str) -> list[types.Tool]:
    """The four meta-tools, described for a caller who may use `modules`."""
    lines = "\n".join(f"- {m.name}: {m.summary}" for m in modules) or "(no modules available)"
    return [
        types.Tool(
            name=GET_MODULE_SCHEMA,
            description=(
                "Read a module's tool definitions before use (a large module gives an index: then pass tools). "
                f"Guides: 'batch', 'script'. Modules:\n{lines}"
            ),
            input_schema=_schema(
                {
                    "module": _MODULE_PROP,
                    "tools": {"type": "array", "items": {"type": "string"}},
                },
                ["module"],
            ),
            annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        ),
        types.Tool(
            name=CALL,
            description="Run one module tool with params matching its inputSchema.",
            input_schema=_schema(
                {
                    "module": _MODULE_PROP,
                    "tool_name": {"type": "string"},
                    "params": {"type": "object"},
                    "account": {"type": "string"},
                },
                ["module", "tool_name"],
            ),
            execution=_LONG,
        ),
        types.Tool(
            name=BATCH,
            description=batch_description,
            input_schema=_schema({"tasks": {"type": "string"}}, ["tasks"]),
            execution=_LONG,
        ),
        types.Tool(
            name=RUN_SCRIPT,
            description=script_description,
            input_schema=_schema({"script": {"type": "string"}, "args": {"type": "object"}}, ["script"]),
            execution=_LONG,
        ),
    ]


@functools.cache
def _input_schemas() -> dict[str, dict[str, Any]]:
    return {tool.name: tool.input_schema for tool in meta_tools([], "", "")}


@functools.cache
def _header_schemas() -> dict[str, dict[str, Any]]:
    return {name: schema for name, schema in _input_schemas().items() if _declares_headers(schema)}


def _declares_headers(schema: Any) -> bool:
    if isinstance(schema, dict):
        return X_MCP_HEADER_KEY in schema or any(_declares_headers(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_declares_headers(value) for value in schema)
    return False


def header_checked_schema(name: str) -> dict[str, Any] | None:
    """The input schema the SDK checks a 2026-07-28 `tools/call`'s `Mcp-Param-*` headers against.

    The same for every caller (only descriptions vary): without this lookup the SDK would run a whole
    `tools/list` (principal, sieve, descriptions) per call to find it. None for a meta-tool none of whose
    parameters declares `x-mcp-header` (all of them today): the SDK then checks nothing, which is what it
    would conclude after walking the schema on every call.
    """
    return _header_schemas().get(name)
