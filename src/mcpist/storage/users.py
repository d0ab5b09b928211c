"""Users. The first user is the owner (system role admin)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from .tables import users

OWNER_EMAIL = "owner@localhost"


@dataclass(frozen=True)
class User:
    id: str
    email: str
    system_role: str
    disabled: bool = False
    """An admin disabled the user: they cannot sign in and no token of theirs is accepted."""


def user_columns() -> tuple[sa.ColumnElement[Any], ...]:
    """The columns `user_from_row` reads, in its order."""
    return (users.c.id, users.c.email, users.c.system_role, users.c.disabled_at)


def user_from_row(row: sa.Row[Any]) -> User:
    return User(id=row[0], email=row[1], system_role=row[2], disabled=row[3] is not None)


async def get_owner(engine: AsyncEngine) -> User | None:
    query = (
        sa.select(*user_columns())
        .where(users.c.system_role == "admin")
        .order_by(users.c.created_at, users.c.id)
        .limit(1)
    )
    async with engine.connect() as conn:
        row = (await conn.execute(query)).first()
    return user_from_row(row) if row else None


async def ensure_owner(engine: AsyncEngine, email: str = OWNER_EMAIL) -> tuple[User, bool]:
    """Return the owner, creating it on first start; the bool says whether it was created."""
    owner = await get_owner(engine)
    if owner is not None:
        return owner, False
    user = User(id=str(uuid.uuid4()), email=email, system_role="admin")
    try:
        async with engine.begin() as conn:
            await conn.execute(
                users.insert().values(
                    id=user.id, email=user.email, system_role=user.system_role, created_at=datetime.now(UTC)
                )
            )
    except sa.exc.IntegrityError:
        # another process made the owner first
        owner = await get_owner(engine)
        if owner is None:
            raise
        return owner, False
    return user, True


async def get_user(engine: AsyncEngine, user_id: str) -> User | None:
    query = sa.select(*user_columns()).where(users.c.id == user_id)
    async with engine.connect() as conn:
        row = (await conn.execute(query)).first()
    return user_from_row(row) if row else None


def enabled() -> sa.ColumnElement[bool]:
    """The condition on `users` that keeps only users who are not disabled (for joins that accept a token)."""
    return users.c.disabled_at.is_(None)
