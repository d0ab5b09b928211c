"""API tokens narrowed to a subset of their user's roles."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.auth.tokens import TokenInfo, TokenStore
from mcpist.errors import NotFound, PermissionDenied
from mcpist.storage.tables import narrowed_tokens, token_roles, user_roles, users
from mcpist.storage.tables import roles as roles_table
from mcpist.storage.users import get_owner


async def create_token(
    engine: AsyncEngine, name: str, *, email: str | None = None, roles: Sequence[str] = ()
) -> tuple[TokenInfo, str]:
    """Create an API token for a user (the owner when `email` is None), narrowed to `roles` if given.

    The token's permissions are always its roles that the user still holds: taking a role from
    the user takes it from the token too.

    Raises:
        NotFound: no such user, no owner yet, or no such role.
        PermissionDenied: the user does not hold one of `roles`.
        InvalidArgument: the token name is malformed.
        Conflict: a token with this name exists.
    """
    async with engine.connect() as conn:
        if email is None:
            owner = await get_owner(engine)
            if owner is None:
                raise NotFound("no owner user exists yet; start the server once", {"user": None})
            user_id, email = owner.id, owner.email
        else:
            found = (await conn.execute(sa.select(users.c.id).where(users.c.email == email))).scalar()
            if found is None:
                raise NotFound(f"no user with email {email!r}", {"user": email})
            user_id = str(found)
        role_ids: list[str] = []
        for role in dict.fromkeys(roles):
            role_id = (await conn.execute(sa.select(roles_table.c.id).where(roles_table.c.name == role))).scalar()
            if role_id is None:
                raise NotFound(f"no role named {role!r}", {"role": role})
            held = await conn.execute(
                sa.select(sa.literal(1)).where(user_roles.c.user_id == user_id, user_roles.c.role_id == role_id)
            )
            if held.first() is None:
                raise PermissionDenied(
                    f"user {email!r} does not hold role {role!r}; a token can only carry its user's roles",
                    {"user": email, "role": role},
                )
            role_ids.append(str(role_id))
    return await TokenStore(engine).create(name, user_id, role_ids if roles else None)


async def token_roles_by_token(engine: AsyncEngine) -> dict[str, tuple[str, ...]]:
    """Narrowed tokens' ids -> the names of the roles they carry (a token absent here carries all)."""
    query = (
        sa.select(narrowed_tokens.c.token_id, roles_table.c.name)
        .outerjoin(token_roles, token_roles.c.token_id == narrowed_tokens.c.token_id)
        .outerjoin(roles_table, roles_table.c.id == token_roles.c.role_id)
        .order_by(roles_table.c.name)
    )
    out: dict[str, tuple[str, ...]] = {}
    async with engine.connect() as conn:
        for token_id, role in await conn.execute(query):
            out[token_id] = out.get(token_id, ()) + ((role,) if role is not None else ())
    return out
