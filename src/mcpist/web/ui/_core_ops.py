"""Writes to the core's tables that the core does not offer as functions yet (each named in docs/ui.md
as one to move down: `auth.users.set_system_role`, `sieve.update_role`, claiming the owner placeholder)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.auth.passwords import hash_password
from mcpist.auth.tables import user_passwords
from mcpist.auth.users import normalize_email
from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.modules.registry import Registry
from mcpist.sieve import check_installed, parse_pattern
from mcpist.sieve._tables import role_permissions, roles, security_events
from mcpist.storage.tables import users
from mcpist.storage.users import OWNER_EMAIL, User, get_owner

MAX_DESCRIPTION = 500


async def unclaimed_owner(engine: AsyncEngine) -> User | None:
    """The owner while it is still the placeholder nobody can sign in as: `owner@localhost`, no password."""
    owner = await get_owner(engine)
    if owner is None or owner.email != OWNER_EMAIL:
        return None
    async with engine.connect() as conn:
        has = await conn.scalar(sa.select(sa.func.count()).where(user_passwords.c.user_id == owner.id))
    return None if has else owner


async def claim_owner(engine: AsyncEngine, owner_id: str, email: str, password: str) -> User | None:
    """Give the placeholder owner an email and a password; None if it was claimed meanwhile (the set-up
    link is single use: it works only while the owner has no password).

    Raises:
        InvalidArgument: a bad email, or a password outside the policy.
        Conflict: another user has this email.
    """
    email = normalize_email(email)
    password_hash = await hash_password(password)
    unclaimed = ~sa.exists().where(user_passwords.c.user_id == owner_id)
    try:
        async with engine.begin() as conn:
            changed = await conn.execute(
                users.update()
                .where(users.c.id == owner_id, users.c.email == OWNER_EMAIL, unclaimed)
                .values(email=email)
            )
            if changed.rowcount != 1:
                return None
            await conn.execute(
                user_passwords.insert().values(
                    user_id=owner_id, password_hash=password_hash, updated_at=datetime.now(UTC)
                )
            )
    except sa.exc.IntegrityError:
        raise Conflict(f"a user with email {email!r} exists", {"field": "email"}) from None
    return User(owner_id, email, "admin")


async def set_system_role(engine: AsyncEngine, user_id: str, system_role: str) -> None:
    """Raises: NotFound: no such user. Conflict: demoting the owner."""
    if system_role not in ("admin", "user"):
        raise InvalidArgument(f"unknown system role {system_role!r}", {"field": "system_role"})
    owner = await get_owner(engine)
    if system_role != "admin" and owner is not None and owner.id == user_id:
        raise Conflict("the owner is always an admin", {"field": "system_role"})
    async with engine.begin() as conn:
        result = await conn.execute(users.update().where(users.c.id == user_id).values(system_role=system_role))
    if result.rowcount == 0:
        raise NotFound("no such user", {"field": "user"})


def check_patterns(values: Iterable[str], registry: Registry, unloaded: Collection[str] = ()) -> list[str]:
    """The patterns, parsed, checked against the installed modules and deduplicated.

    Raises:
        InvalidArgument: a malformed pattern or one naming an unknown module or tool.
    """
    out: list[str] = []
    for value in values:
        if not value.strip():
            continue
        pattern = parse_pattern(value)
        check_installed(pattern, registry, unloaded)
        if str(pattern) not in out:
            out.append(str(pattern))
    return out


async def update_role(
    engine: AsyncEngine,
    name: str,
    allow: Sequence[str],
    deny: Sequence[str],
    description: str,
    *,
    registry: Registry,
    unloaded: Collection[str] = (),
) -> None:
    """Replace a role's patterns and description; its holders keep it.

    Raises:
        NotFound: no such role. Conflict: the role is built in.
        InvalidArgument: no allow pattern, a bad pattern, or too long a description.
    """
    allowed = check_patterns(allow, registry, unloaded)
    denied = check_patterns(deny, registry, unloaded)
    if not allowed:
        raise InvalidArgument(f"role {name!r} needs at least one allow pattern", {"field": "allow"})
    description = " ".join(description.split())
    if len(description) > MAX_DESCRIPTION:
        raise InvalidArgument(f"description longer than {MAX_DESCRIPTION} characters", {"field": "description"})
    async with engine.begin() as conn:
        row = (await conn.execute(sa.select(roles.c.id, roles.c.builtin).where(roles.c.name == name))).first()
        if row is None:
            raise NotFound(f"no role named {name!r}", {"role": name})
        if row.builtin:
            raise Conflict(f"role {name!r} is built in and cannot be changed", {"role": name})
        await conn.execute(roles.update().where(roles.c.id == row.id).values(description=description))
        await conn.execute(role_permissions.delete().where(role_permissions.c.role_id == row.id))
        await conn.execute(
            role_permissions.insert(),
            [{"role_id": row.id, "effect": "allow", "pattern": p} for p in allowed]
            + [{"role_id": row.id, "effect": "deny", "pattern": p} for p in denied],
        )


async def count_security_events(engine: AsyncEngine, since: datetime) -> int:
    async with engine.connect() as conn:
        query = sa.select(sa.func.count()).select_from(security_events).where(security_events.c.at >= since)
        return int(await conn.scalar(query) or 0)
