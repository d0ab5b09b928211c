"""Access tokens signed by an external IdP (Supabase Auth, Auth0, Keycloak...), checked against its JWKS."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import jwt
from mcp.server.auth.provider import AccessToken
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.auth.users import allowlisted_user
from mcpist.config import ExternalJwtSettings

logger = logging.getLogger("mcpist.auth.oauth")

# a token naming an unknown key may refetch the set, but not more often than this
_REFETCH_MIN_S = 60.0


class Jwks:
    """A cached JSON Web Key Set; signing keys only."""

    def __init__(
        self, url: str, http: httpx.AsyncClient, *, cache_s: float, clock: Callable[[], float] = time.time
    ) -> None:
        self._url = url
        self._http = http
        self._cache_s = cache_s
        self._clock = clock
        self._keys: dict[str | None, jwt.PyJWK] = {}
        self._checked_at: float | None = None
        self._lock = anyio.Lock()

    async def key(self, kid: str | None) -> jwt.PyJWK | None:
        if self._due(kid):
            async with self._lock:
                if self._due(kid):
                    await self._refresh()
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid)

    def _due(self, kid: str | None) -> bool:
        if self._checked_at is None:
            return True
        age = self._clock() - self._checked_at
        return age > self._cache_s or (kid not in self._keys and age > _REFETCH_MIN_S)

    async def _refresh(self) -> None:
        self._checked_at = self._clock()
        try:
            response = await self._http.get(self._url, headers={"Accept": "application/json"}, timeout=10.0)
            response.raise_for_status()
            key_set = jwt.PyJWKSet.from_dict(response.json())
        except (httpx.HTTPError, ValueError, jwt.PyJWTError) as exc:
            # keep serving the keys we had; an IdP hiccup should not log everyone out
            logger.warning("cannot fetch the JWKS at %s: %s", self._url, exc)
            return
        self._keys = {k.key_id: k for k in key_set.keys if k.public_key_use in (None, "sig")}


class ExternalJwtVerifier:
    """Accepts a JWT whose signature, `iss`, `aud` and `exp` check out and whose email is a user's.

    The audience is `settings.audience` or this server's `/mcp` URL. The email claim must name a
    registered user, or one the `allowed_emails` list lets in (created on first use).
    """

    def __init__(
        self,
        settings: ExternalJwtSettings,
        *,
        engine: AsyncEngine,
        http: httpx.AsyncClient,
        resource_url: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._settings = settings
        self._engine = engine
        self._resource_url = resource_url
        self._audience = settings.audience or resource_url
        self._jwks = Jwks(settings.jwks_url, http, cache_s=settings.jwks_cache_s, clock=clock)

    async def verify_token(self, token: str) -> AccessToken | None:
        if token.count(".") != 2 or len(token) > 16_384:
            return None
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return None
        alg = header.get("alg")
        if alg not in self._settings.algorithms:
            return None
        kid = header.get("kid")
        key = await self._jwks.key(kid if isinstance(kid, str) else None)
        if key is None:
            return None
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key=key,
                algorithms=[alg],
                audience=self._audience,
                issuer=self._settings.issuer,
                leeway=self._settings.leeway_s,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError as exc:
            logger.info("external JWT refused: %s", exc)
            return None
        email = claims.get(self._settings.email_claim)
        if not isinstance(email, str) or not email:
            return None
        user = await allowlisted_user(self._engine, email, self._settings.allowed_emails)
        if user is None or user.disabled:
            logger.info("external JWT for %s refused: not a registered or allowed user, or disabled", email)
            return None
        scope = claims.get("scope")
        return AccessToken(
            token=token,
            client_id=str(claims.get("azp") or claims.get("client_id") or self._settings.issuer),
            scopes=scope.split() if isinstance(scope, str) else [],
            expires_at=int(claims["exp"]),
            resource=self._resource_url,
            subject=user.id,
            claims={"email": user.email, "iss": self._settings.issuer, "external_sub": claims["sub"]},
        )
