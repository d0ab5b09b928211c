"""The UI's records: each user's settings (name, language, time zone, roles held while disabled) and the audit log of
admin actions and access requests. Secrets never go in: an action names what it changed, not values."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from mcpist.auth.tokens import TokenStore
from mcpist.auth.users import set_disabled
from mcpist.errors import NotFound
from mcpist.sieve import grant_role, revoke_role, roles_of

from ._tables import audit, profiles

LANGUAGES = ("en", "ja")
ACCESS_REQUEST = "access_request"


@dataclass(frozen=True)
class Profile:
    display_name: str = ""
    language: str | None = None
    time_zone: str | None = None
    held_roles: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    actor_id: str | None
    actor_email: str
    action: str
    target: str
    detail: str


def _clip(value: str, column: sa.Column[Any]) -> str:
    length = getattr(column.type, "length", None)
    return value[:length] if length else value


async def get_profile(engine: AsyncEngine, user_id: str) -> Profile:
    async with engine.connect() as conn:
        row = (await conn.execute(sa.select(profiles).where(profiles.c.user_id == user_id))).first()
    return _profile(row)


async def get_profiles(engine: AsyncEngine) -> dict[str, Profile]:
    async with engine.connect() as conn:
        rows = (await conn.execute(sa.select(profiles))).all()
    return {row.user_id: _profile(row) for row in rows}


def _profile(row: Any) -> Profile:
    if row is None:
        return Profile()
    held = tuple(json.loads(row.held_roles)) if row.held_roles else ()
    return Profile(row.display_name, row.language, row.time_zone, held)


async def _upsert(conn: AsyncConnection, user_id: str, values: dict[str, Any]) -> None:
    values = {**values, "updated_at": datetime.now(UTC)}
    updated = await conn.execute(profiles.update().where(profiles.c.user_id == user_id).values(**values))
    if updated.rowcount == 0:
        await conn.execute(profiles.insert().values(user_id=user_id, **values))


async def save_profile(
    engine: AsyncEngine, user_id: str, *, display_name: str, language: str | None, time_zone: str | None
) -> None:
    async with engine.begin() as conn:
        await _upsert(conn, user_id, {"display_name": display_name, "language": language, "time_zone": time_zone})


async def set_language(engine: AsyncEngine, user_id: str, language: str) -> None:
    async with engine.begin() as conn:
        await _upsert(conn, user_id, {"language": language})


async def hold_roles(engine: AsyncEngine, user_id: str, held_roles: list[str] | None) -> None:
    """Keep the roles a user held when disabled, to give back when enabled (None: forget them)."""
    values: dict[str, Any] = {"held_roles": json.dumps(held_roles) if held_roles is not None else None}
    async with engine.begin() as conn:
        await _upsert(conn, user_id, values)


async def record(
    engine: AsyncEngine, actor_id: str | None, actor_email: str, action: str, target: str = "", detail: str = ""
) -> None:
    c = audit.c
    async with engine.begin() as conn:
        await conn.execute(
            audit.insert().values(
                at=datetime.now(UTC),
                actor_id=actor_id,
                actor_email=_clip(actor_email, c.actor_email),
                action=_clip(action, c.action),
                target=_clip(target, c.target),
                detail=_clip(detail, c.detail),
            )
        )


async def list_audit(
    engine: AsyncEngine, *, offset: int = 0, limit: int = 50, action: str | None = None, actor: str | None = None
) -> list[AuditEntry]:
    """The newest entries first."""
    query = sa.select(audit).order_by(audit.c.id.desc()).offset(offset).limit(limit)
    if action:
        query = query.where(audit.c.action == action)
    if actor:
        query = query.where(audit.c.actor_email == actor)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [AuditEntry(r.id, r.at, r.actor_id, r.actor_email, r.action, r.target, r.detail) for r in rows]


async def count_audit(engine: AsyncEngine, *, action: str | None = None, since: datetime | None = None) -> int:
    query = sa.select(sa.func.count()).select_from(audit)
    if action:
        query = query.where(audit.c.action == action)
    if since is not None:
        query = query.where(audit.c.at >= since)
    async with engine.connect() as conn:
        return int(await conn.scalar(query) or 0)


async def disable_user(engine: AsyncEngine, user_id: str, email: str) -> list[str]:
    """Disable a user everywhere (the UI's button and `mcpist user disable`): refused from the next
    request on, every role taken away (kept here to give back) and every API token revoked; returns the
    roles taken.

    Raises:
        NotFound: no such user.
        Conflict: the owner.
    """
    # first, so a failure below leaves the user refused rather than half disabled
    await set_disabled(engine, user_id, True)
    held = await roles_of(engine, email)
    if held:  # a second disable must not forget the roles the first one kept
        await hold_roles(engine, user_id, held)
    for role in held:
        await revoke_role(engine, email, role)
    store = TokenStore(engine)
    for token in await store.list():
        if token.user_id == user_id and token.revoked_at is None:
            await store.revoke(token.name)
    return held


async def enable_user(engine: AsyncEngine, user_id: str, email: str) -> list[str]:
    """Enable a disabled user again with the roles they held (those not deleted meanwhile; revoked
    tokens stay revoked); returns the roles given back.

    Raises:
        NotFound: no such user.
    """
    profile = await get_profile(engine, user_id)
    given: list[str] = []
    for role in profile.held_roles:
        try:
            await grant_role(engine, email, role)
            given.append(role)
        except NotFound:
            pass  # the role was deleted meanwhile
    await hold_roles(engine, user_id, None)
    await set_disabled(engine, user_id, False)
    return given
