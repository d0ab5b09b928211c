"""The meta-tools `tools/list` shows: their schemas and per-caller descriptions."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from mcpist.modules.api import Module

GET_MODULE_SCHEMA = "get_module_schema"
CALL = "call"
BATCH = "batch"
META_TOOLS = (GET_MODULE_SCHEMA, CALL, BATCH)

_MODULE_PROP = {"type": "string", "description": "Module name"}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def meta_tools(modules: list[Module], batch_description: str) -> list[types.Tool]:
    """The three meta-tools, described for a caller who may use `modules`."""
    lines = "\n".join(f"- {m.name}: {m.summary}" for m in modules) or "(no modules available)"
    names = ", ".join(m.name for m in modules) or "none"
    return [
        types.Tool(
            name=GET_MODULE_SCHEMA,
            description=(
                "Get one module's tool definitions (inputSchema, annotations) before using its tools; a large "
                "module first answers with an index: then pass tools. 'batch' gives the batch syntax guide. "
                f"Modules:\n{lines}"
            ),
            input_schema=_schema(
                {
                    "module": _MODULE_PROP,
                    "tools": {"type": "array", "items": {"type": "string"}, "description": "Only these tools, in full"},
                },
                ["module"],
            ),
            annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        ),
        types.Tool(
            name=CALL,
            description=f"Run one tool of a module ({names}) with params matching its inputSchema.",
            input_schema=_schema(
                {
                    "module": _MODULE_PROP,
                    "tool_name": {"type": "string"},
                    "params": {"type": "object"},
                    "account": {"type": "string", "description": "Connected account name, if several"},
                },
                ["module", "tool_name"],
            ),
        ),
        types.Tool(
            name=BATCH,
            description=batch_description,
            input_schema=_schema({"tasks": {"type": "string", "description": "JSONL, one task per line"}}, ["tasks"]),
        ),
    ]
