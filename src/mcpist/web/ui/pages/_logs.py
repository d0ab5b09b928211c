"""`/logs` (admins): security events (refused tool calls, never their arguments), the audit log of
admin actions and access requests, and the audit of tool calls (who, module, tool, account, outcome,
duration; never arguments or results), each filterable and paginated, newest first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import get_args

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.responses import Response
from starlette.routing import Route

from mcpist.errors import ErrorCode
from mcpist.observe import CANCELLED, tool_calls
from mcpist.sieve import list_security_events
from mcpist.sieve._events import MAX_EVENTS
from mcpist.storage.tables import api_tokens, users

from .._app import Call, Ui
from .._store import list_audit

VIEWS = ("security", "admin", "calls")
ERRORS = "errors"
"""The outcome filter for every call that did not end `ok`."""
OUTCOMES = ("ok", ERRORS, *get_args(ErrorCode), CANCELLED)


@dataclass(frozen=True)
class ToolCallEntry:
    at: datetime
    email: str | None
    user_id: str | None
    token_name: str | None
    module: str
    tool: str
    account: str | None
    via: str
    outcome: str
    duration_ms: int
    request_id: str | None


async def list_tool_calls(
    engine: AsyncEngine,
    *,
    offset: int,
    limit: int,
    email: str | None = None,
    module: str | None = None,
    outcome: str | None = None,
) -> list[ToolCallEntry]:
    """The newest first; `outcome` is `ok`, `errors` (anything else) or one code."""
    c = tool_calls.c
    query = (
        sa.select(
            c.at,
            users.c.email,
            c.user_id,
            api_tokens.c.name,
            c.module,
            c.tool,
            c.account,
            c.via,
            c.outcome,
            c.duration_ms,
            c.request_id,
        )
        .outerjoin(users, users.c.id == c.user_id)
        .outerjoin(api_tokens, api_tokens.c.id == c.token_id)
        .order_by(c.id.desc())
        .offset(offset)
        .limit(limit)
    )
    if email:
        query = query.where(users.c.email == email)
    if module:
        query = query.where(c.module == module)
    if outcome == ERRORS:
        query = query.where(c.outcome != "ok")
    elif outcome:
        query = query.where(c.outcome == outcome)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [ToolCallEntry(*row) for row in rows]


def _page(call: Call) -> int:
    try:
        return max(1, min(int(call.query("page", "1")), 10_000))
    except ValueError:
        return 1


async def logs(call: Call) -> Response:
    engine = call.runtime.engine
    size = call.ui.settings.page_size
    page = _page(call)
    shown = call.query("view")
    shown = shown if shown in VIEWS else "security"
    user = call.query("user").strip().lower()
    kind = call.query("kind").strip()
    modules = sorted(call.runtime.registry.names())
    module = call.query("module").strip()
    module = module if module in modules else ""
    outcome = call.query("outcome").strip()
    outcome = outcome if outcome in OUTCOMES else ""
    rows: list[object]
    kinds: list[str] = []
    if shown == "security":
        events = await list_security_events(engine, MAX_EVENTS)
        matching = [e for e in events if (not user or (e.email or "").lower() == user) and (not kind or e.kind == kind)]
        rows = list(matching[(page - 1) * size : page * size + 1])
        kinds = sorted({e.kind for e in events})
    elif shown == "admin":
        rows = list(
            await list_audit(engine, offset=(page - 1) * size, limit=size + 1, action=kind or None, actor=user or None)
        )
    else:
        rows = list(
            await list_tool_calls(
                engine,
                offset=(page - 1) * size,
                limit=size + 1,
                email=user or None,
                module=module or None,
                outcome=outcome or None,
            )
        )
    more = len(rows) > size
    return call.render(
        "logs.html",
        view=shown,
        rows=rows[:size],
        page=page,
        more=more,
        user=user,
        kind=kind,
        kinds=kinds,
        module=module,
        modules=modules,
        outcome=outcome,
        outcomes=OUTCOMES,
    )


def routes(ui: Ui) -> list[Route]:
    return [ui.route("/logs", logs, name="logs", admin=True)]
