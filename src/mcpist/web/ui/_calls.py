"""The audit of tool calls as admins read it: the `/logs` page (`?view=calls`) and `mcpist calls`.

Who (user, API token), module, tool, account, how it was reached, outcome, duration and the request id;
never arguments or results (the table holds none). The rows are written by `mcpist.observe`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import get_args

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.errors import ErrorCode
from mcpist.observe import CANCELLED, tool_calls
from mcpist.storage.tables import api_tokens, users

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
