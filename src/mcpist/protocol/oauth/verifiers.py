"""Bearer token verifiers for `/mcp`: MCPist's own OAuth access tokens, and a chain of verifiers."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from mcp.server.auth.provider import AccessToken, TokenVerifier

from .provider import same_url
from .store import OAuthStore


class OAuthTokenVerifier:
    """Accepts an access token this server issued, unexpired, unrevoked, and for `resource_url` only."""

    def __init__(self, store: OAuthStore, resource_url: str, *, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._resource_url = resource_url
        self._clock = clock

    async def verify_token(self, token: str) -> AccessToken | None:
        found = await self._store.load_access(token)
        if found is None or found.expires_at is None or found.expires_at <= self._clock():
            return None
        if found.resource is None or not same_url(found.resource, self._resource_url):
            return None
        return found


class ChainedTokenVerifier:
    """The first verifier that accepts the token wins; each one ignores tokens not of its kind."""

    def __init__(self, verifiers: Sequence[TokenVerifier]) -> None:
        self._verifiers = list(verifiers)

    async def verify_token(self, token: str) -> AccessToken | None:
        for verifier in self._verifiers:
            found = await verifier.verify_token(token)
            if found is not None:
                return found
        return None
