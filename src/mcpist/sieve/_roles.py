"""Roles, their permissions and who holds them; the rules one request runs under."""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.modules.registry import Registry
from mcpist.storage.tables import users
from mcpist.storage.users import get_owner

from ._grants import Rule
from ._patterns import check_installed, parse_pattern
from ._tables import narrowed_tokens, role_permissions, roles, token_roles, user_roles

ADMIN_ROLE = "admin"
# fixed, so every replica and every start agree on the built-in role without a lookup
ADMIN_ROLE_ID = "00000000-0000-4000-8000-000000000001"
ADMIN_DESCRIPTION = "Built in: every tool of every module. The owner always holds it."
ROLE_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
MAX_DESCRIPTION = 500


@dataclass(frozen=True)
class Role:
    id: str
    name: str
    description: str
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    builtin: bool
    users: tuple[str, ...]
    """Emails of the users holding the role."""


async def insert_ignore(conn: AsyncConnection, table: sa.Table, rows: Sequence[Mapping[str, Any]]) -> int:
    """Insert rows, skipping those a unique key already holds (safe when replicas race); returns how many went in."""
    if not rows:
        return 0
    insert = sqlite.insert if conn.dialect.name == "sqlite" else postgresql.insert
    result = await conn.execute(insert(table).on_conflict_do_nothing(), list(rows))
    return result.rowcount


async def ensure_owner_access(engine: AsyncEngine, owner_id: str) -> None:
    """Make the built-in admin role (allow `*`) exist and the owner hold it; idempotent."""
    now = datetime.now(UTC)
    async with engine.begin() as conn:
        await insert_ignore(
            conn,
            roles,
            [
                {
                    "id": ADMIN_ROLE_ID,
                    "name": ADMIN_ROLE,
                    "description": ADMIN_DESCRIPTION,
                    "builtin": True,
                    "created_at": now,
                }
            ],
        )
        await insert_ignore(conn, role_permissions, [{"role_id": ADMIN_ROLE_ID, "effect": "allow", "pattern": "*"}])
        await insert_ignore(conn, user_roles, [{"user_id": owner_id, "role_id": ADMIN_ROLE_ID, "granted_at": now}])


async def load_access(engine: AsyncEngine, user_id: str, token_id: str | None) -> tuple[list[str], list[Rule]]:
    """The names of the roles in force (by name) and their rules: the roles this user holds now,
    kept to the token's roles when the token is narrowed."""
    held = sa.select(user_roles.c.role_id).where(user_roles.c.user_id == user_id)
    query = (
        sa.select(roles.c.name, roles.c.id, role_permissions.c.effect, role_permissions.c.pattern)
        .outerjoin(role_permissions, role_permissions.c.role_id == roles.c.id)
        .where(roles.c.id.in_(held))
        .order_by(roles.c.name)
    )
    if token_id is not None:
        narrowed = sa.exists().where(narrowed_tokens.c.token_id == token_id)
        carried = sa.select(token_roles.c.role_id).where(token_roles.c.token_id == token_id)
        query = query.where(sa.or_(~narrowed, roles.c.id.in_(carried)))
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    names = list(dict.fromkeys(row[0] for row in rows))
    return names, [Rule(role_id, effect, pattern) for _, role_id, effect, pattern in rows if effect is not None]


def check_patterns(values: Iterable[str], registry: Registry | None, unloaded: Collection[str] = ()) -> list[str]:
    """The patterns parsed, checked against `registry`'s modules and tools (or `unloaded` ones), deduplicated;
    blank values are skipped.

    Raises:
        InvalidArgument: a malformed pattern, or one naming an unknown module or tool.
    """
    out: list[str] = []
    for value in values:
        if not value.strip():
            continue
        pattern = parse_pattern(value)
        if registry is not None:
            check_installed(pattern, registry, unloaded)
        text = str(pattern)
        if text not in out:
            out.append(text)
    return out


async def create_role(
    engine: AsyncEngine,
    name: str,
    allow: Sequence[str],
    deny: Sequence[str] = (),
    description: str = "",
    *,
    registry: Registry | None = None,
    unloaded: Collection[str] = (),
) -> Role:
    """Create a role. With `registry`, patterns must name its modules and tools, or a module of `unloaded`
    (installed, disabled, not imported).

    Raises:
        InvalidArgument: a bad name, no allow pattern, a malformed pattern, or (with `registry`)
            a pattern naming an unknown module or tool; the message names it.
        Conflict: a role with this name exists.
    """
    if not ROLE_NAME_RE.fullmatch(name):
        raise InvalidArgument(
            f"invalid role name {name!r}: use 1-64 of a-z, 0-9, '_' and '-', starting with a letter",
            {"field": "name"},
        )
    allowed = check_patterns(allow, registry, unloaded)
    denied = check_patterns(deny, registry, unloaded)
    if not allowed:
        raise InvalidArgument(
            f"role {name!r} needs at least one allow pattern: a role's deny only narrows its own allows",
            {"field": "allow"},
        )
    description = " ".join(description.split())
    if len(description) > MAX_DESCRIPTION:
        raise InvalidArgument(f"description longer than {MAX_DESCRIPTION} characters", {"field": "description"})
    role_id = str(uuid.uuid4())
    try:
        async with engine.begin() as conn:
            await conn.execute(
                roles.insert().values(
                    id=role_id, name=name, description=description, builtin=False, created_at=datetime.now(UTC)
                )
            )
            await conn.execute(
                role_permissions.insert(),
                [{"role_id": role_id, "effect": "allow", "pattern": p} for p in allowed]
                + [{"role_id": role_id, "effect": "deny", "pattern": p} for p in denied],
            )
    except sa.exc.IntegrityError:
        raise Conflict(f"a role named {name!r} already exists", {"field": "name"}) from None
    return Role(role_id, name, description, tuple(allowed), tuple(denied), False, ())


async def list_roles(engine: AsyncEngine) -> list[Role]:
    """Every role by name, with its patterns and the emails of its holders."""
    async with engine.connect() as conn:
        role_rows = (
            await conn.execute(
                sa.select(roles.c.id, roles.c.name, roles.c.description, roles.c.builtin).order_by(roles.c.name)
            )
        ).all()
        rules = (
            await conn.execute(
                sa.select(role_permissions.c.role_id, role_permissions.c.effect, role_permissions.c.pattern).order_by(
                    role_permissions.c.pattern
                )
            )
        ).all()
        holders = (
            await conn.execute(
                sa.select(user_roles.c.role_id, users.c.email)
                .join(users, users.c.id == user_roles.c.user_id)
                .order_by(users.c.email)
            )
        ).all()
    out: list[Role] = []
    for role_id, name, description, builtin in role_rows:
        out.append(
            Role(
                id=role_id,
                name=name,
                description=description,
                allow=tuple(p for r, e, p in rules if r == role_id and e == "allow"),
                deny=tuple(p for r, e, p in rules if r == role_id and e == "deny"),
                builtin=bool(builtin),
                users=tuple(email for r, email in holders if r == role_id),
            )
        )
    return out


async def get_role(engine: AsyncEngine, name: str) -> Role | None:
    return next((r for r in await list_roles(engine) if r.name == name), None)


async def delete_role(engine: AsyncEngine, name: str) -> None:
    """Delete a role; its holders lose it, and tokens narrowed to it lose it (never widen).

    Raises:
        NotFound: no role has this name.
        Conflict: the role is built in.
    """
    async with engine.begin() as conn:
        role_id, builtin = await _role(conn, name)
        if builtin:
            raise Conflict(f"role {name!r} is built in and cannot be deleted", {"role": name})
        await conn.execute(roles.delete().where(roles.c.id == role_id))


async def _role(conn: AsyncConnection, name: str) -> tuple[str, bool]:
    row = (await conn.execute(sa.select(roles.c.id, roles.c.builtin).where(roles.c.name == name))).first()
    if row is None:
        raise NotFound(f"no role named {name!r}", {"role": name})
    return row[0], bool(row[1])


async def _user_id(conn: AsyncConnection, email: str) -> str:
    user_id = (await conn.execute(sa.select(users.c.id).where(users.c.email == email))).scalar()
    if user_id is None:
        raise NotFound(f"no user with email {email!r}", {"user": email})
    return str(user_id)


async def grant_role(engine: AsyncEngine, email: str, role: str) -> bool:
    """Give a user a role; returns False when the user already held it.

    Raises:
        NotFound: no such user or role.
    """
    async with engine.begin() as conn:
        user_id = await _user_id(conn, email)
        role_id, _ = await _role(conn, role)
        row = {"user_id": user_id, "role_id": role_id, "granted_at": datetime.now(UTC)}
        return await insert_ignore(conn, user_roles, [row]) == 1


async def revoke_role(engine: AsyncEngine, email: str, role: str) -> None:
    """Take a role from a user; the user's tokens lose it too.

    Raises:
        NotFound: no such user or role, or the user does not hold it.
        Conflict: taking the built-in admin role from the owner.
    """
    owner = await get_owner(engine)
    async with engine.begin() as conn:
        user_id = await _user_id(conn, email)
        role_id, _ = await _role(conn, role)
        if role_id == ADMIN_ROLE_ID and owner is not None and owner.id == user_id:
            raise Conflict(
                f"the owner always holds role {ADMIN_ROLE!r}; narrow a token to fewer roles instead",
                {"user": email, "role": role},
            )
        result = await conn.execute(
            user_roles.delete().where(user_roles.c.user_id == user_id, user_roles.c.role_id == role_id)
        )
    if result.rowcount == 0:
        raise NotFound(f"user {email!r} does not hold role {role!r}", {"user": email, "role": role})


async def roles_of(engine: AsyncEngine, email: str) -> list[str]:
    """The names of the roles a user holds.

    Raises:
        NotFound: no such user.
    """
    async with engine.connect() as conn:
        user_id = await _user_id(conn, email)
        query = (
            sa.select(roles.c.name)
            .join(user_roles, user_roles.c.role_id == roles.c.id)
            .where(user_roles.c.user_id == user_id)
            .order_by(roles.c.name)
        )
        return list((await conn.execute(query)).scalars())


async def update_role(
    engine: AsyncEngine,
    name: str,
    allow: Sequence[str],
    deny: Sequence[str] = (),
    description: str = "",
    *,
    registry: Registry | None = None,
    unloaded: Collection[str] = (),
) -> None:
    """Replace a role's patterns and description; its holders keep it. Patterns are checked as by
    `create_role`.

    Raises:
        NotFound: no such role.
        Conflict: the role is built in.
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
