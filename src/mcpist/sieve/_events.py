"""Security events: refused tool calls, recorded without their arguments."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.errors import InvalidArgument
from mcpist.storage.tables import api_tokens, users

from ._tables import security_events

HIDDEN_TOOL_CALL = "hidden_tool_call"
"""The tool exists, but none of the caller's roles allows it."""
UNKNOWN_TOOL_CALL = "unknown_tool_call"
"""No such module or tool is installed."""

Via = Literal["call", "batch", "script", "resource"]
MAX_EVENTS = 10_000


@dataclass(frozen=True)
class SecurityEvent:
    id: int
    at: datetime
    user_id: str | None
    email: str | None
    token_id: str | None
    token_name: str | None
    module: str
    tool: str
    kind: str
    via: str


def _clip(value: str, column: sa.Column[str]) -> str:
    # names come from the caller: keep what fits, so a long name cannot make the insert fail
    length = getattr(column.type, "length", None)
    return value[:length] if length else value


async def record_security_event(
    engine: AsyncEngine,
    *,
    user_id: str | None,
    token_id: str | None,
    module: str,
    tool: str,
    kind: str,
    via: Via,
) -> None:
    c = security_events.c
    async with engine.begin() as conn:
        await conn.execute(
            security_events.insert().values(
                at=datetime.now(UTC),
                user_id=user_id,
                token_id=token_id,
                module=_clip(module, c.module),
                tool=_clip(tool, c.tool),
                kind=kind,
                via=via,
            )
        )


async def list_security_events(engine: AsyncEngine, limit: int = 100) -> list[SecurityEvent]:
    """The newest events first.

    Raises:
        InvalidArgument: `limit` is not 1-10000.
    """
    if not 1 <= limit <= MAX_EVENTS:
        raise InvalidArgument(f"limit must be 1-{MAX_EVENTS}", {"field": "limit"})
    e = security_events.c
    query = (
        sa.select(e.id, e.at, e.user_id, users.c.email, e.token_id, api_tokens.c.name, e.module, e.tool, e.kind, e.via)
        .outerjoin(users, users.c.id == e.user_id)
        .outerjoin(api_tokens, api_tokens.c.id == e.token_id)
        .order_by(e.id.desc())
        .limit(limit)
    )
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [
        SecurityEvent(
            id=row[0],
            at=row[1],
            user_id=row[2],
            email=row[3],
            token_id=row[4],
            token_name=row[5],
            module=row[6],
            tool=row[7],
            kind=row[8],
            via=row[9],
        )
        for row in rows
    ]


async def count_security_events(
    engine: AsyncEngine, since: datetime, *, kinds: Collection[str] = (), after_id: int = 0
) -> int:
    """How many refused calls were recorded since `since` (of `kinds`, when given; with an id above
    `after_id`)."""
    query = sa.select(sa.func.count()).select_from(security_events).where(security_events.c.at >= since)
    if kinds:
        query = query.where(security_events.c.kind.in_(list(kinds)))
    if after_id:
        query = query.where(security_events.c.id > after_id)
    async with engine.connect() as conn:
        return int(await conn.scalar(query) or 0)
