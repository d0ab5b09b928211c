"""MCP sampling as a `Sampler`: asks the client's own LLM, when the client offers it."""

from __future__ import annotations

import warnings
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from mcpist.errors import Unavailable
from mcpist.modules.api import Sampler


class SessionSampler:
    def __init__(self, ctx: ServerRequestContext[Any, Any]) -> None:
        self._ctx = ctx

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> str:
        sampling = [
            types.SamplingMessage(
                role="assistant" if m.get("role") == "assistant" else "user",
                content=types.TextContent(type="text", text=m.get("content", "")),
            )
            for m in messages
        ]
        try:
            with warnings.catch_warnings():
                # deprecated only on 2026-07-28, and only offered on handshake-era sessions here
                warnings.simplefilter("ignore")
                result = await self._ctx.session.create_message(
                    sampling,
                    max_tokens=max_tokens,
                    system_prompt=system,
                    temperature=temperature,
                    related_request_id=self._ctx.request_id,
                )
        except MCPError as exc:
            raise Unavailable(f"the client's LLM refused the sampling request: {exc.error.message}") from None
        content = result.content
        if isinstance(content, types.TextContent):
            return content.text
        raise Unavailable("the client's LLM answered without text")


def session_sampler(ctx: ServerRequestContext[Any, Any]) -> Sampler | None:
    """A sampler for this request when the client declared the sampling capability."""
    try:
        caps = ctx.session.client_capabilities
    except Exception:  # modern per-request connections may carry no session state
        return None
    if caps is None or caps.sampling is None or not ctx.session.can_send_request:
        return None
    return SessionSampler(ctx)
