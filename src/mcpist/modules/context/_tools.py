"""The tools of module `context` (seed 004 §4.1 and §5)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcpist.modules import NotFound, ResourceExhausted

from . import _service, _store
from ._module import Ctx, module
from ._results import (
    ContextItem,
    ContextView,
    EndSessionResult,
    ItemChange,
    PromptView,
    RecordResponseResult,
    RespondResult,
    SessionList,
    SessionSummary,
    StartSessionResult,
    TurnResult,
    TurnView,
)

SessionId = Annotated[str, Field(description="from start_session", min_length=1, max_length=64)]
Message = Annotated[str, Field(description="the user's message, exactly as they wrote it")]
ItemId = Annotated[str, Field(description="an item id from get_context", pattern=r"^[0-9a-f]{32}$")]
MAX_LISTED = 200


@module.tool()
async def start_session(ctx: Ctx) -> StartSessionResult:
    """Start a conversation session with an empty context store; returns its session_id."""
    state = ctx.state
    now = state.clock()
    limit = ctx.settings.max_sessions_per_user
    async with ctx.engine.begin() as conn:
        # expired sessions go here, where a new one starts, rather than on a timer of its own
        cutoff = _service.cutoff(ctx.settings, now)
        await _store.purge_expired(conn, cutoff)
        if await _store.count_live_sessions(conn, ctx.caller.user_id, cutoff) >= limit:
            raise ResourceExhausted(
                f"you already have {limit} open context sessions (max_sessions_per_user); end one with end_session "
                "or let unused ones expire",
                {"setting": "max_sessions_per_user", "limit": limit},
            )
        session = await _store.create_session(conn, ctx.caller.user_id, now)
    return StartSessionResult(session_id=session.id, expires_at=_service.expires_at(ctx.settings, session))


@module.tool()
async def add_turn(ctx: Ctx, session_id: SessionId, message: Message) -> TurnResult:
    """Add the user's message: classify its intent, update the context and return the synthesised prompt.

    Send `prompt` to your LLM in place of the bare message, then call record_response with the answer.
    """
    return await _service.add_turn(ctx, session_id, message)


@module.tool()
async def record_response(
    ctx: Ctx,
    session_id: SessionId,
    text: Annotated[str, Field(description="the assistant's reply to the latest message")],
) -> RecordResponseResult:
    """Store the assistant's reply to the latest user message in the turn context."""
    state = ctx.state
    _service.check_text("text", text, ctx.settings.max_response_chars)
    now = state.clock()
    async with ctx.engine.begin() as conn:
        session = await _store.get_session(conn, ctx.caller.user_id, session_id, _service.cutoff(ctx.settings, now))
        turn, replaced = await _store.record_response(conn, session, text, now)
    return RecordResponseResult(session_id=session_id, turn=turn, replaced=replaced)


@module.tool(open_world=True)
async def respond(ctx: Ctx, session_id: SessionId, message: Message) -> RespondResult:
    """The whole turn: add the message, ask the configured LLM with the synthesised prompt, store and return its answer.

    Needs `responder = "llm"` and an LLM (MCP sampling or an endpoint); a failed call stores nothing.
    """
    result, reply, backend = await _service.respond(ctx, session_id, message)
    return RespondResult(
        **result.model_dump(), response=reply, responded_by="sampling" if backend == "sampling" else "endpoint"
    )


@module.tool(read_only=True)
async def get_context(ctx: Ctx, session_id: SessionId) -> ContextView:
    """The session's context store, each item with its label and why it is stored; correct it with drop_item/pin_item.

    core: the goal and what narrows it; evolving: constraints; turns: recent exchanges; superseded:
    items replaced (with what replaced them and why) or dropped.
    """
    store = await _service.load(ctx, session_id)
    texts = {item.id: item.text for item in store.items}
    return ContextView(
        session=SessionSummary.of(store.session, _service.expires_at(ctx.settings, store.session)),
        core=[ContextItem.of(item) for item in store.active("core")],
        evolving=[ContextItem.of(item) for item in store.active("evolving")],
        turns=[TurnView.of(exchange) for exchange in store.exchanges],
        superseded=[ContextItem.of(item, texts) for item in store.superseded()],
    )


async def _change_item(ctx: Ctx, session_id: str, item_id: str, **values: bool | str | None) -> ItemChange:
    """Raises: NotFound (the session, or the item in it)."""
    now = ctx.state.clock()
    async with ctx.engine.begin() as conn:
        session = await _store.get_session(conn, ctx.caller.user_id, session_id, _service.cutoff(ctx.settings, now))
        store = await _store.load_store(conn, session)
        item = store.by_id(item_id)
        if item is None:
            raise NotFound(f"item_id {item_id!r}: no such item in this session (see get_context)", {"field": "item_id"})
        await _store.update_item(conn, session, item_id, now, **values)
    for key, value in values.items():
        setattr(item, key, value)
    return ItemChange(session_id=session_id, item=ContextItem.of(item), prompt=_service.prompt_of(store))


@module.tool(idempotent=True)
async def drop_item(ctx: Ctx, session_id: SessionId, item_id: ItemId) -> ItemChange:
    """Drop a stored goal, constraint or refinement that is wrong or no longer holds: it leaves the prompt.

    get_context lists it under `superseded` with status "dropped"; pin_item restores it. Returns the new prompt.
    """
    return await _change_item(ctx, session_id, item_id, dropped=True, pinned=False)


@module.tool(idempotent=True)
async def pin_item(
    ctx: Ctx,
    session_id: SessionId,
    item_id: ItemId,
    pinned: Annotated[bool, Field(description="false unpins")] = True,
) -> ItemChange:
    """Pin an item so no later message replaces it (and the goal is never pruned), or unpin it.

    Pinning a dropped or superseded item restores it to the prompt. Returns the new prompt.
    """
    if not pinned:
        return await _change_item(ctx, session_id, item_id, pinned=False)
    return await _change_item(ctx, session_id, item_id, pinned=True, dropped=False, superseded_by=None)


@module.tool(read_only=True)
async def get_prompt(ctx: Ctx, session_id: SessionId) -> PromptView:
    """The synthesised prompt for the session's latest message."""
    store = await _service.load(ctx, session_id)
    return PromptView(session_id=session_id, language=store.session.language or "en", prompt=_service.prompt_of(store))


@module.tool(read_only=True)
async def list_sessions(ctx: Ctx) -> SessionList:
    """The caller's live sessions, most recently used first."""
    now = ctx.state.clock()
    async with ctx.engine.connect() as conn:
        rows = await _store.list_sessions(conn, ctx.caller.user_id, _service.cutoff(ctx.settings, now), MAX_LISTED)
    return SessionList(sessions=[SessionSummary.of(row, _service.expires_at(ctx.settings, row)) for row in rows])


@module.tool(destructive=True)
async def end_session(ctx: Ctx, session_id: SessionId) -> EndSessionResult:
    """End the session and discard its context store (and its words from the keyword statistics)."""
    now = ctx.state.clock()
    async with ctx.engine.begin() as conn:
        await _store.get_session(conn, ctx.caller.user_id, session_id, _service.cutoff(ctx.settings, now))
        await _store.delete_session(conn, session_id)
    return EndSessionResult(session_id=session_id)
