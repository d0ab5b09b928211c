"""API tokens: shown once at creation, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.storage.tables import api_tokens, users
from mcpist.storage.users import enabled

TOKEN_PREFIX = "mcpist_"  # noqa: S105 - a public marker, not a secret
TOKEN_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# 32 random bytes: a SHA-256 of the token is as strong as a slow hash, and cheap on every request
_TOKEN_BYTES = 32

InTransaction = Callable[[AsyncConnection, str], Awaitable[None]]
"""Writes that stand or fall with a new token: given the transaction's connection and the token's id."""


@dataclass(frozen=True)
class TokenInfo:
    id: str
    name: str
    user_id: str
    email: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _columns() -> list[sa.ColumnElement[object]]:
    return [
        api_tokens.c.id,
        api_tokens.c.name,
        api_tokens.c.user_id,
        users.c.email,
        api_tokens.c.prefix,
        api_tokens.c.created_at,
        api_tokens.c.last_used_at,
        api_tokens.c.revoked_at,
    ]


def _info(row: sa.Row[tuple[object, ...]]) -> TokenInfo:
    return TokenInfo(*row)


class TokenStore:
    """Create, list, revoke and verify API tokens."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def create(self, name: str, user_id: str, *, then: InTransaction | None = None) -> tuple[TokenInfo, str]:
        """Make a token; returns its record and the plaintext, which is never stored.

        `then` runs in the transaction that inserts the token: the Tool Sieve narrows the token
        there (`mcpist.sieve.NewToken.narrow`), so it never exists unnarrowed.

        Raises:
            InvalidArgument: the name is not 1-64 of letters, digits, '.', '_' or '-'.
            Conflict: a token with this name exists.
        """
        if not TOKEN_NAME_RE.fullmatch(name):
            raise InvalidArgument(
                f"invalid token name {name!r}: use 1-64 letters, digits, '.', '_' or '-'", {"field": "name"}
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(_TOKEN_BYTES)
        token_id = str(uuid.uuid4())
        now = datetime.now(UTC)
        try:
            async with self._engine.begin() as conn:
                await conn.execute(
                    api_tokens.insert().values(
                        id=token_id,
                        user_id=user_id,
                        name=name,
                        token_hash=hash_token(token),
                        prefix=token[: len(TOKEN_PREFIX) + 4],
                        created_at=now,
                    )
                )
                if then is not None:
                    await then(conn, token_id)
        except sa.exc.IntegrityError:
            if await self.get(name) is None:
                raise  # not the name: something `then` wrote
            raise Conflict(f"a token named {name!r} already exists", {"field": "name"}) from None
        info = await self.get(name)
        assert info is not None
        return info, token

    async def get(self, name: str) -> TokenInfo | None:
        query = sa.select(*_columns()).join(users, users.c.id == api_tokens.c.user_id).where(api_tokens.c.name == name)
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return _info(row) if row else None

    async def list(self) -> list[TokenInfo]:
        query = sa.select(*_columns()).join(users, users.c.id == api_tokens.c.user_id).order_by(api_tokens.c.name)
        async with self._engine.connect() as conn:
            return [_info(row) for row in await conn.execute(query)]

    async def revoke(self, name: str) -> TokenInfo:
        """Revoke a token by name.

        Raises:
            NotFound: no active token has this name.
        """
        async with self._engine.begin() as conn:
            result = await conn.execute(
                api_tokens.update()
                .where(api_tokens.c.name == name, api_tokens.c.revoked_at.is_(None))
                .values(revoked_at=datetime.now(UTC))
            )
        if result.rowcount == 0:
            raise NotFound(f"no active token named {name!r}", {"field": "name"})
        info = await self.get(name)
        assert info is not None
        return info

    async def verify(self, token: str) -> TokenInfo | None:
        """The active token matching `token` of a user who is not disabled, or None; records when it was
        last used."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 128:
            return None
        digest = hash_token(token)
        query = (
            sa.select(*_columns())
            .join(users, users.c.id == api_tokens.c.user_id)
            .where(api_tokens.c.token_hash == digest, api_tokens.c.revoked_at.is_(None), enabled())
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        info = _info(row)
        now = datetime.now(UTC)
        last = info.last_used_at
        if last is None or (now - last).total_seconds() > 60:
            # at most one write a minute per token keeps verification off SQLite's write lock
            async with self._engine.begin() as conn:
                await conn.execute(api_tokens.update().where(api_tokens.c.id == info.id).values(last_used_at=now))
        return info
