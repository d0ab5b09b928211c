"""API tokens narrowed to a subset of their user's roles.

The sieve does not create tokens (that is `mcpist.auth.tokens`, its peer): it says whom a new
token is for and records the narrowing inside the transaction that creates it, e.g.

    new = await prepare_token(engine, email=email, roles=roles)
    info, token = await TokenStore(engine).create(name, new.user_id, then=new.narrow)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from mcpist.errors import NotFound, PermissionDenied
from mcpist.storage.tables import users
from mcpist.storage.users import get_owner

from ._tables import narrowed_tokens, token_roles, user_roles
from ._tables import roles as roles_table


@dataclass(frozen=True)
class NewToken:
    """Whom a new API token is for, and the roles it is narrowed to (None: all of the user's)."""

    user_id: str
    email: str
    role_ids: tuple[str, ...] | None

    async def narrow(self, conn: AsyncConnection, token_id: str) -> None:
        """Record the narrowing of the token `token_id`.

        Run it in the transaction that inserts the token, so the token never exists unnarrowed.
        """
        if self.role_ids is None:
            return
        await conn.execute(narrowed_tokens.insert().values(token_id=token_id))
        if self.role_ids:
            await conn.execute(token_roles.insert(), [{"token_id": token_id, "role_id": r} for r in self.role_ids])


async def prepare_token(engine: AsyncEngine, *, email: str | None = None, roles: Sequence[str] = ()) -> NewToken:
    """Check a new token for a user (the owner when `email` is None), narrowed to `roles` if given.

    The token's permissions are always its roles that the user still holds: taking a role from
    the user takes it from the token too.

    Raises:
        NotFound: no such user, no owner yet, or no such role.
        PermissionDenied: the user does not hold one of `roles`.
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
    return NewToken(user_id, email, tuple(role_ids) if roles else None)


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
