"""An API token created as `mcpist token create` does it: the sieve checks, the token store inserts."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.auth.tokens import TokenInfo, TokenStore
from mcpist.sieve import prepare_token


async def create_token(
    engine: AsyncEngine, name: str, *, email: str | None = None, roles: Sequence[str] = ()
) -> tuple[TokenInfo, str]:
    """A token for `email` (the owner when None), narrowed to `roles` if given; raises as the two steps do."""
    new = await prepare_token(engine, email=email, roles=roles)
    return await TokenStore(engine).create(name, new.user_id, then=new.narrow)
