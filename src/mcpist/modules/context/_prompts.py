"""Each session's synthesised prompt as an MCP prompt.

Two shapes, because clients differ: `context_session` takes the session id as an argument (what
programs and the issue ask for), and each recent session is also listed as an argument-less
`context_session_<id>` whose description is its title, so a person picks it from a client's
prompt menu without typing an id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpist.modules import (
    InvalidArgument,
    NotFound,
    PromptArgument,
    PromptInfo,
    PromptMessage,
    PromptResult,
    ToolContext,
)

from . import _service, _store
from ._settings import ContextSettings

GENERIC = "context_session"
PREFIX = GENERIC + "_"


class SessionPrompts:
    """The `PromptProvider` of module `context`."""

    async def list_prompts(self, ctx: ToolContext[Any, Any]) -> list[PromptInfo]:
        settings: ContextSettings = ctx.settings
        now = ctx.state.clock()
        async with ctx.engine.connect() as conn:
            sessions = await _store.list_sessions(
                conn, ctx.caller.user_id, _service.cutoff(settings, now), settings.listed_prompts
            )
        out = [
            PromptInfo(
                name=GENERIC,
                description="The synthesised prompt (goal, constraints, recent turns) of one context session",
                arguments=(PromptArgument("session_id", "from start_session or list_sessions"),),
            )
        ]
        for session in sessions:
            title = session.title or "(no message yet)"
            out.append(PromptInfo(name=PREFIX + session.id, description=f"Context session: {title}"))
        return out

    async def complete_argument(
        self, ctx: ToolContext[Any, Any], prompt: str, argument: str, value: str, context: Mapping[str, str]
    ) -> list[str]:
        """The caller's recent session ids starting with `value`, for `context_session`'s `session_id`."""
        if prompt != GENERIC or argument != "session_id":
            return []
        settings: ContextSettings = ctx.settings
        async with ctx.engine.connect() as conn:
            sessions = await _store.list_sessions(
                conn, ctx.caller.user_id, _service.cutoff(settings, ctx.state.clock()), 100
            )
        return [s.id for s in sessions if s.id.startswith(value.strip())]

    async def get_prompt(self, ctx: ToolContext[Any, Any], name: str, arguments: dict[str, str]) -> PromptResult:
        """Raises: NotFound (unknown prompt or session), InvalidArgument (session_id missing)."""
        if name == GENERIC:
            session_id = arguments.get("session_id", "").strip()
            if not session_id:
                raise InvalidArgument("prompt context_session needs the argument session_id", {"field": "session_id"})
        elif name.startswith(PREFIX):
            session_id = name.removeprefix(PREFIX)
        else:
            raise NotFound(f"module context has no prompt {name!r}")
        store = await _service.load(ctx, session_id)
        title = store.session.title or session_id
        return PromptResult(
            description=f"Context session: {title}",
            messages=(PromptMessage(role="user", text=_service.prompt_of(store)),),
        )
