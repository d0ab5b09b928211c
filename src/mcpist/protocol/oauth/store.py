"""Clients, pending authorizations, codes and tokens in the database; secrets only as SHA-256.

A grant is one user's consent to one client: the code and every access and refresh token issued
from it share its `grant_id`, so replaying the code or an old refresh token revokes them all.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from mcp.server.auth.provider import AccessToken, AuthorizationCode, AuthorizationParams, RefreshToken
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.storage.tables import users
from mcpist.storage.types import utc
from mcpist.storage.users import enabled

from ._crypto import Keys, digest, new_token
from .tables import oauth_clients, oauth_codes, oauth_requests, oauth_tokens

ACCESS_PREFIX = "mcpist-at_"
REFRESH_PREFIX = "mcpist-rt_"
CODE_PREFIX = "mcpist-ac_"
CODE_TTL_S = 300
REQUEST_TTL_S = 900


class StoredCode(AuthorizationCode):
    grant_id: str


class StoredRefreshToken(RefreshToken):
    grant_id: str


class PendingLimit(Exception):
    """Too many authorizations wait for sign-in and consent (of this client, or in all)."""


class OAuthStore:
    def __init__(
        self,
        engine: AsyncEngine,
        keys: Keys,
        *,
        issuer: str,
        clock: Callable[[], float],
        pending_per_client: int = 20,
        max_pending: int = 2_000,
    ) -> None:
        self.engine = engine
        self.keys = keys
        self._issuer = issuer
        self._clock = clock
        self._pending_per_client = pending_per_client
        self._max_pending = max_pending

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), UTC)

    # clients (dynamic registration)

    async def save_client(self, info: OAuthClientInformationFull) -> None:
        sealed = self.keys.seal(info.client_secret, info.client_id) if info.client_secret else None
        record = info.model_dump(mode="json", exclude={"client_secret"}, exclude_none=True)
        async with self.engine.begin() as conn:
            await conn.execute(
                oauth_clients.insert().values(
                    client_id=info.client_id, info=record, secret_sealed=sealed, created_at=self.now()
                )
            )

    async def count_clients(self) -> int:
        async with self.engine.connect() as conn:
            return int((await conn.scalar(sa.select(sa.func.count()).select_from(oauth_clients))) or 0)

    async def expire_unused_clients(self, older_than_s: float) -> int:
        """Remove clients registered over `older_than_s` ago that hold no code, token or pending request."""
        cutoff = self.now() - timedelta(seconds=older_than_s)
        in_use = sa.union(
            sa.select(oauth_codes.c.client_id),
            sa.select(oauth_tokens.c.client_id),
            sa.select(oauth_requests.c.client_id),
        )
        async with self.engine.begin() as conn:
            result = await conn.execute(
                oauth_clients.delete().where(
                    oauth_clients.c.created_at < cutoff, oauth_clients.c.client_id.not_in(in_use.scalar_subquery())
                )
            )
        return int(result.rowcount or 0)

    async def load_client(self, client_id: str) -> OAuthClientInformationFull | None:
        query = sa.select(oauth_clients.c.info, oauth_clients.c.secret_sealed).where(
            oauth_clients.c.client_id == client_id
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        info = OAuthClientInformationFull.model_validate(row[0])
        if row[1] is not None:
            secret = self.keys.open(row[1], client_id)
            if secret is None:
                return None
            info.client_secret = secret
        return info

    # pending authorization requests, between /authorize and the consent page

    async def save_request(self, client_id: str, params: AuthorizationParams) -> str:
        """Raises: PendingLimit: the client, or the server, has as many pending requests as it may."""
        request_id = new_token("")
        async with self.engine.begin() as conn:
            await conn.execute(oauth_requests.delete().where(oauth_requests.c.expires_at <= self.now()))
            count = sa.select(sa.func.count()).select_from(oauth_requests)
            if (
                await conn.scalar(count.where(oauth_requests.c.client_id == client_id)) or 0
            ) >= self._pending_per_client:
                raise PendingLimit(f"this client has {self._pending_per_client} authorizations waiting for the user")
            if (await conn.scalar(count) or 0) >= self._max_pending:
                raise PendingLimit("too many authorizations are waiting for their users")
            await conn.execute(
                oauth_requests.insert().values(
                    id_hash=digest(request_id),
                    client_id=client_id,
                    params=params.model_dump(mode="json"),
                    expires_at=self.now() + timedelta(seconds=REQUEST_TTL_S),
                )
            )
        return request_id

    async def load_request(self, request_id: str) -> tuple[str, AuthorizationParams] | None:
        query = sa.select(oauth_requests.c.client_id, oauth_requests.c.params, oauth_requests.c.expires_at).where(
            oauth_requests.c.id_hash == digest(request_id)
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None or utc(row[2]) <= self.now():
            return None
        return row[0], AuthorizationParams.model_validate(row[1])

    async def take_request(self, request_id: str) -> bool:
        """Remove a pending request; False if another submission removed it first."""
        async with self.engine.begin() as conn:
            result = await conn.execute(oauth_requests.delete().where(oauth_requests.c.id_hash == digest(request_id)))
        return result.rowcount == 1

    # authorization codes

    async def create_code(self, client_id: str, user_id: str, params: AuthorizationParams, resource: str) -> str:
        code = new_token(CODE_PREFIX)
        now = self.now()
        async with self.engine.begin() as conn:
            await conn.execute(oauth_codes.delete().where(oauth_codes.c.expires_at <= now - timedelta(days=1)))
            await conn.execute(oauth_tokens.delete().where(oauth_tokens.c.expires_at <= now - timedelta(days=1)))
            await conn.execute(
                oauth_codes.insert().values(
                    code_hash=digest(code),
                    grant_id=str(uuid.uuid4()),
                    client_id=client_id,
                    user_id=user_id,
                    scopes=params.scopes or [],
                    code_challenge=params.code_challenge,
                    redirect_uri=str(params.redirect_uri),
                    redirect_uri_explicit=params.redirect_uri_provided_explicitly,
                    resource=resource,
                    expires_at=now + timedelta(seconds=CODE_TTL_S),
                )
            )
        return code

    async def load_code(self, code: str) -> StoredCode | None:
        """The unused, unexpired code; a used one revokes everything issued from it and reads as None."""
        if not code.startswith(CODE_PREFIX):
            return None
        query = sa.select(oauth_codes).where(oauth_codes.c.code_hash == digest(code))
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).mappings().first()
        if row is None:
            return None
        if row["used_at"] is not None:
            await self.revoke_grant(row["grant_id"])
            return None
        expires_at = utc(row["expires_at"])
        if expires_at <= self.now():
            return None
        return StoredCode(
            code=code,
            scopes=list(row["scopes"]),
            expires_at=expires_at.timestamp(),
            client_id=row["client_id"],
            code_challenge=row["code_challenge"],
            redirect_uri=AnyUrl(row["redirect_uri"]),
            redirect_uri_provided_explicitly=row["redirect_uri_explicit"],
            resource=row["resource"],
            subject=row["user_id"],
            grant_id=row["grant_id"],
        )

    async def use_code(self, code: str) -> bool:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                oauth_codes.update()
                .where(oauth_codes.c.code_hash == digest(code), oauth_codes.c.used_at.is_(None))
                .values(used_at=self.now())
            )
        return result.rowcount == 1

    # access and refresh tokens

    async def issue(
        self,
        *,
        grant_id: str,
        client_id: str,
        user_id: str,
        scopes: list[str],
        resource: str,
        access_ttl_s: int,
        refresh_ttl_s: int | None,
    ) -> OAuthToken:
        now = self.now()
        access, refresh = new_token(ACCESS_PREFIX), new_token(REFRESH_PREFIX) if refresh_ttl_s else None
        common: dict[str, Any] = {
            "grant_id": grant_id,
            "client_id": client_id,
            "user_id": user_id,
            "scopes": scopes,
            "resource": resource,
            "created_at": now,
        }
        rows = [
            {
                **common,
                "token_hash": digest(access),
                "kind": "access",
                "expires_at": now + timedelta(seconds=access_ttl_s),
            }
        ]
        if refresh is not None and refresh_ttl_s:
            expires = now + timedelta(seconds=refresh_ttl_s)
            rows.append({**common, "token_hash": digest(refresh), "kind": "refresh", "expires_at": expires})
        async with self.engine.begin() as conn:
            await conn.execute(oauth_tokens.insert(), rows)
        return OAuthToken(
            access_token=access,
            expires_in=access_ttl_s,
            scope=" ".join(scopes) or None,
            refresh_token=refresh,
        )

    async def _token_row(self, token: str, kind: str) -> sa.RowMapping | None:
        query = (
            sa.select(oauth_tokens, users.c.email)
            .join(users, users.c.id == oauth_tokens.c.user_id)
            # a disabled user's tokens are refused from the next request on
            .where(oauth_tokens.c.token_hash == digest(token), oauth_tokens.c.kind == kind, enabled())
        )
        async with self.engine.connect() as conn:
            return (await conn.execute(query)).mappings().first()

    async def load_access(self, token: str) -> AccessToken | None:
        """The unrevoked access token (expired ones too: the caller checks `expires_at`)."""
        if not token.startswith(ACCESS_PREFIX) or len(token) > 128:
            return None
        row = await self._token_row(token, "access")
        if row is None or row["revoked_at"] is not None:
            return None
        return AccessToken(
            token=token,
            client_id=row["client_id"],
            scopes=list(row["scopes"]),
            expires_at=int(utc(row["expires_at"]).timestamp()),
            resource=row["resource"],
            subject=row["user_id"],
            claims={"email": row["email"], "iss": self._issuer, "grant_id": row["grant_id"]},
        )

    async def load_refresh(self, token: str) -> StoredRefreshToken | None:
        """The current refresh token; presenting a rotated-out one revokes its whole grant."""
        if not token.startswith(REFRESH_PREFIX) or len(token) > 128:
            return None
        row = await self._token_row(token, "refresh")
        if row is None or row["revoked_at"] is not None:
            return None
        if row["used_at"] is not None:
            await self.revoke_grant(row["grant_id"])
            return None
        expires_at = utc(row["expires_at"])
        if expires_at <= self.now():
            return None
        return StoredRefreshToken(
            token=token,
            client_id=row["client_id"],
            scopes=list(row["scopes"]),
            expires_at=int(expires_at.timestamp()),
            resource=row["resource"],
            subject=row["user_id"],
            grant_id=row["grant_id"],
        )

    async def use_refresh(self, token: str) -> bool:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                oauth_tokens.update()
                .where(
                    oauth_tokens.c.token_hash == digest(token),
                    oauth_tokens.c.used_at.is_(None),
                    oauth_tokens.c.revoked_at.is_(None),
                )
                .values(used_at=self.now())
            )
        return result.rowcount == 1

    async def revoke_grant(self, grant_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                oauth_tokens.update()
                .where(oauth_tokens.c.grant_id == grant_id, oauth_tokens.c.revoked_at.is_(None))
                .values(revoked_at=self.now())
            )
