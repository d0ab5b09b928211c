"""A module used only by the tests: echoes, sums, waits, fails on purpose."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import anyio
from pydantic import BaseModel, Field

from mcpist.modules import ApiKeyAuth, Conflict, Module, ToolContext

demo = Module("demo", summary="Test tools: echo, add, wait, fail")
remote = Module("remote", summary="A module that needs an account", auth=ApiKeyAuth())


class Item(BaseModel):
    id: str
    status: str
    n: int = 0


class ListResult(BaseModel):
    items: list[Item]


@demo.tool(read_only=True)
async def echo(ctx: ToolContext[Any], text: Annotated[str, Field(description="Text to return")]) -> dict[str, Any]:
    """Return the text and who called."""
    return {"text": text, "user": ctx.caller.user_id}


@demo.tool(read_only=True)
async def add(ctx: ToolContext[Any], a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@demo.tool(read_only=True)
async def items(ctx: ToolContext[Any], count: Annotated[int, Field(ge=0, le=100)] = 3) -> ListResult:
    """List some items."""
    return ListResult(items=[Item(id=f"i{i}", status="open" if i % 2 == 0 else "closed", n=i) for i in range(count)])


@demo.tool(read_only=True)
async def wait(ctx: ToolContext[Any], ms: Annotated[int, Field(ge=0, le=60_000)]) -> dict[str, int]:
    """Wait, then answer."""
    await anyio.sleep(ms / 1000)
    return {"waited_ms": ms}


@demo.tool(destructive=True)
async def fail(ctx: ToolContext[Any], message: str = "stale version") -> None:
    """Always fail with CONFLICT."""
    raise Conflict(message, {"expected": 1, "actual": 2})


@demo.tool()
async def boom(ctx: ToolContext[Any]) -> None:
    """Raise an unexpected exception carrying a secret."""
    raise RuntimeError("secret-value-that-must-not-leak")


@remote.tool(read_only=True)
async def whoami(ctx: ToolContext[Any]) -> dict[str, Any]:
    """Name the account used."""
    assert ctx.account is not None
    return {"account": ctx.account.name}


async def _words(ctx: ToolContext[Any], value: str, known: Mapping[str, str]) -> list[str]:
    return [w for w in ("hello", "help", "world") if w.startswith(value)]


@demo.resource("demo://echo/{text}", tool="echo", complete={"text": _words})
async def echo_resource(ctx: ToolContext[Any], text: str) -> str:
    """The text, as a resource."""
    return f"{text} (read by {ctx.caller.user_id})"


@demo.resource("demo://about", tool="add", mime_type="application/octet-stream")
async def about(ctx: ToolContext[Any]) -> bytes:
    """A fixed resource with binary content."""
    return b"\x00demo"


@remote.resource("remote://whoami", tool="whoami")
async def whoami_resource(ctx: ToolContext[Any]) -> str:
    """The account used, as a resource."""
    assert ctx.account is not None
    return ctx.account.name
