"""Helpers for testing MCPist modules: a tool context as the server builds it, fake upstream APIs checked
against the vendors' descriptions, MCPist running in process and an MCP client for it."""

from typing import TYPE_CHECKING

from mcpist.testing.context import FakeCredentials, RecordedSleep, call_tool, tool_context
from mcpist.testing.contract import (
    assert_covered,
    covered_in,
    covers,
    definition_problems,
    definition_size,
    kind_of,
    schema_problems,
)
from mcpist.testing.upstream import FakeUpstream, RecordedRequest, Violation

if TYPE_CHECKING:
    from mcpist.testing.server import in_process_client, running

__all__ = [
    "FakeCredentials",
    "FakeUpstream",
    "RecordedRequest",
    "RecordedSleep",
    "Violation",
    "assert_covered",
    "call_tool",
    "covered_in",
    "covers",
    "definition_problems",
    "definition_size",
    "in_process_client",
    "kind_of",
    "running",
    "schema_problems",
    "tool_context",
]


def __getattr__(name: str) -> object:
    # the server helpers import the whole server (seconds); a test that only fakes an upstream need not pay
    if name in ("in_process_client", "running"):
        from mcpist.testing import server

        return getattr(server, name)
    raise AttributeError(f"module 'mcpist.testing' has no attribute {name!r}")
