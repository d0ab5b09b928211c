"""Reading and writing sessions, the context store and the corpus statistics (SQLite or PostgreSQL)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from mcpist.modules import NotFound

from . import _tables as t
from ._model import Exchange, Item, SessionRow, Store
from ._plan import TurnPlan
from ._text import Language


class StaleSession(Exception):
    """Another turn of the same session was stored between reading and writing."""


def _language(value: Any) -> Language | None:
    return "ja" if value == "ja" else "en" if value == "en" else None


def _session(row: sa.Row[Any]) -> SessionRow:
    return SessionRow(
        id=row.id,
        user_id=row.user_id,
        title=row.title,
        language=_language(row.language),
        turns=row.turns,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _expired_ids(cutoff: datetime) -> sa.Select[tuple[str]]:
    return sa.select(t.sessions.c.id).where(t.sessions.c.updated_at < cutoff)


async def purge_expired(conn: AsyncConnection, cutoff: datetime) -> int:
    """Delete every session idle since before `cutoff`, with its store and term counts."""
    ids = list((await conn.execute(_expired_ids(cutoff))).scalars())
    if ids:
        await _delete(conn, ids)
    return len(ids)


async def _delete(conn: AsyncConnection, ids: Sequence[str]) -> None:
    # children first, so deleting works without relying on ON DELETE CASCADE being enforced
    for table in (t.terms, t.turns, t.items):
        await conn.execute(sa.delete(table).where(table.c.session_id.in_(ids)))
    await conn.execute(sa.delete(t.sessions).where(t.sessions.c.id.in_(ids)))


async def create_session(conn: AsyncConnection, user_id: str, now: datetime) -> SessionRow:
    session = SessionRow(uuid.uuid4().hex, user_id, None, None, 0, now, now)
    await conn.execute(
        sa.insert(t.sessions).values(
            id=session.id, user_id=user_id, title=None, language=None, turns=0, created_at=now, updated_at=now
        )
    )
    return session


async def count_live_sessions(conn: AsyncConnection, user_id: str, cutoff: datetime) -> int:
    """How many of the user's sessions have not expired."""
    query = (
        sa.select(sa.func.count())
        .select_from(t.sessions)
        .where(t.sessions.c.user_id == user_id, t.sessions.c.updated_at >= cutoff)
    )
    return int((await conn.execute(query)).scalar_one())


async def get_session(conn: AsyncConnection, user_id: str, session_id: str, cutoff: datetime) -> SessionRow:
    """The caller's live session.

    Raises:
        NotFound: no such session, it belongs to someone else, or it expired (the same answer for all three).
    """
    row = (
        await conn.execute(
            sa.select(t.sessions).where(
                t.sessions.c.id == session_id, t.sessions.c.user_id == user_id, t.sessions.c.updated_at >= cutoff
            )
        )
    ).first()
    if row is None:
        raise NotFound(f"session_id {session_id!r}: no such session (it may have ended or expired)")
    return _session(row)


async def list_sessions(conn: AsyncConnection, user_id: str, cutoff: datetime, limit: int) -> list[SessionRow]:
    rows = await conn.execute(
        sa.select(t.sessions)
        .where(t.sessions.c.user_id == user_id, t.sessions.c.updated_at >= cutoff)
        .order_by(t.sessions.c.updated_at.desc(), t.sessions.c.id)
        .limit(limit)
    )
    return [_session(row) for row in rows]


async def delete_session(conn: AsyncConnection, session_id: str) -> None:
    await _delete(conn, [session_id])


async def load_store(conn: AsyncConnection, session: SessionRow) -> Store:
    item_rows = await conn.execute(
        sa.select(t.items).where(t.items.c.session_id == session.id).order_by(t.items.c.turn, t.items.c.created_at)
    )
    items = [
        Item(
            id=r.id,
            tier="core" if r.tier == "core" else "evolving",
            kind=r.kind,
            text=r.text,
            keywords=list(r.keywords),
            terms=list(r.terms),
            slots=list(r.slots),
            turn=r.turn,
            created_at=r.created_at,
            parent_id=r.parent_id,
            superseded_by=r.superseded_by,
            label=r.label,
            reason=r.reason,
            pinned=bool(r.pinned),
            dropped=bool(r.dropped),
            replaced_reason=r.replaced_reason,
        )
        for r in item_rows
    ]
    items.sort(key=lambda item: (item.turn, item.created_at, item.tier != "core"))
    turn_rows = await conn.execute(
        sa.select(t.turns).where(t.turns.c.session_id == session.id).order_by(t.turns.c.turn)
    )
    exchanges = [
        Exchange(
            turn=r.turn,
            message=r.message,
            language=_language(r.language) or "en",
            intent=list(r.intent),
            reason=r.reason,
            keywords=list(r.keywords),
            created_at=r.created_at,
            response=r.response,
        )
        for r in turn_rows
    ]
    return Store(session, items, exchanges)


async def corpus_stats(conn: AsyncConnection, user_id: str, terms: Sequence[str]) -> tuple[dict[str, int], int]:
    """Document frequencies of `terms` and the document count, over the user's live sessions."""
    n_docs = (
        await conn.execute(
            sa.select(sa.func.coalesce(sa.func.sum(t.sessions.c.turns), 0)).where(t.sessions.c.user_id == user_id)
        )
    ).scalar_one()
    df: dict[str, int] = {}
    if terms:
        rows = await conn.execute(
            sa.select(t.terms.c.term, sa.func.sum(t.terms.c.docs))
            .where(t.terms.c.user_id == user_id, t.terms.c.term.in_(sorted(set(terms))))
            .group_by(t.terms.c.term)
        )
        df = {term: int(count) for term, count in rows}
    return df, int(n_docs)


def _count_terms(dialect: str) -> sa.Executable:
    """Add one document to a term's count, creating the row on first sight (both dialects upsert)."""
    insert: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(t.terms)
    return cast(
        sa.Executable,
        stmt.on_conflict_do_update(
            index_elements=[t.terms.c.session_id, t.terms.c.term], set_={"docs": t.terms.c.docs + 1}
        ),
    )


async def apply_turn(conn: AsyncConnection, plan: TurnPlan, response: str | None = None) -> None:
    """Write one planned turn (and, for `respond`, its reply) in the caller's transaction.

    Raises:
        StaleSession: another turn was stored since the plan read the session.
    """
    session = plan.store.session
    result = await conn.execute(
        sa.update(t.sessions)
        .where(t.sessions.c.id == session.id, t.sessions.c.turns == plan.expected_turns)
        .values(turns=session.turns, language=session.language, title=session.title, updated_at=session.updated_at)
    )
    if result.rowcount != 1:
        raise StaleSession(session.id)
    if plan.dropped:
        await conn.execute(sa.delete(t.items).where(t.items.c.id.in_(plan.dropped)))
    for item_id, values in plan.changes.items():
        await conn.execute(sa.update(t.items).where(t.items.c.id == item_id).values(**values))
    if plan.new_items:
        await conn.execute(
            sa.insert(t.items),
            [
                {
                    "id": i.id,
                    "session_id": session.id,
                    "tier": i.tier,
                    "kind": i.kind,
                    "text": i.text,
                    "keywords": i.keywords,
                    "terms": i.terms,
                    "slots": i.slots,
                    "turn": i.turn,
                    "parent_id": i.parent_id,
                    "superseded_by": i.superseded_by,
                    "created_at": i.created_at,
                    "label": i.label,
                    "reason": i.reason,
                    "pinned": i.pinned,
                    "dropped": i.dropped,
                    "replaced_reason": i.replaced_reason,
                }
                for i in plan.new_items
            ],
        )
    e = plan.exchange
    await conn.execute(
        sa.insert(t.turns).values(
            session_id=session.id,
            turn=e.turn,
            message=e.message,
            response=response,
            language=e.language,
            intent=e.intent,
            reason=e.reason,
            keywords=e.keywords,
            created_at=e.created_at,
        )
    )
    await conn.execute(
        sa.delete(t.turns).where(t.turns.c.session_id == session.id, t.turns.c.turn <= plan.prune_through)
    )
    if plan.term_docs:
        rows = [
            {"session_id": session.id, "term": term, "user_id": session.user_id, "docs": 1} for term in plan.term_docs
        ]
        await conn.execute(_count_terms(conn.dialect.name), rows)


async def record_response(conn: AsyncConnection, session: SessionRow, text: str, now: datetime) -> tuple[int, bool]:
    """Attach the assistant's reply to the latest user turn; returns (turn, whether a reply was replaced).

    Raises:
        NotFound: the session has no user turn yet.
    """
    row = (
        await conn.execute(
            sa.select(t.turns.c.turn, t.turns.c.response)
            .where(t.turns.c.session_id == session.id)
            .order_by(t.turns.c.turn.desc())
            .limit(1)
        )
    ).first()
    if row is None:
        raise NotFound(f"session_id {session.id!r}: no user turn to attach a response to; call add_turn first")
    await conn.execute(
        sa.update(t.turns).where(t.turns.c.session_id == session.id, t.turns.c.turn == row.turn).values(response=text)
    )
    await conn.execute(sa.update(t.sessions).where(t.sessions.c.id == session.id).values(updated_at=now))
    return int(row.turn), row.response is not None


async def update_item(conn: AsyncConnection, session: SessionRow, item_id: str, now: datetime, **values: Any) -> None:
    """Change one item of the session (pin, drop, restore) and mark the session used."""
    await conn.execute(
        sa.update(t.items).where(t.items.c.session_id == session.id, t.items.c.id == item_id).values(**values)
    )
    await conn.execute(sa.update(t.sessions).where(t.sessions.c.id == session.id).values(updated_at=now))
