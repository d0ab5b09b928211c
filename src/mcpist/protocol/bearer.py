"""Bearer authentication for `/mcp` with API tokens, and the caller an authenticated request carries."""

from __future__ import annotations

from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext

from mcpist.auth.tokens import TokenInfo, TokenStore, hash_token
from mcpist.errors import Unauthenticated
from mcpist.modules.api import Caller
from mcpist.ttlcache import TtlCache


class ApiTokenVerifier:
    """The SDK's `TokenVerifier` over MCPist's API tokens; a valid token is re-checked after `cache_s`."""

    def __init__(self, store: TokenStore, cache_s: float = 0.0) -> None:
        self._store = store
        # keyed by the token's hash, so no plaintext token is kept as a key
        self._valid: TtlCache[str, TokenInfo] = TtlCache(cache_s)

    async def verify_token(self, token: str) -> AccessToken | None:
        info = await self._valid.get_or_load(hash_token(token), lambda: self._store.verify(token))
        if info is None:
            return None
        return AccessToken(
            token=token,
            client_id=f"api-token:{info.name}",
            scopes=[],
            subject=info.user_id,
            claims={"token_id": info.id, "email": info.email},
        )


def caller_from_request(ctx: ServerRequestContext[Any, Any]) -> Caller:
    """The caller the bearer middleware authenticated for this HTTP request.

    Raises:
        Unauthenticated: the request carries no authenticated user (never past RequireAuthMiddleware).
    """
    request = ctx.request
    user = request.scope.get("user") if request is not None and hasattr(request, "scope") else None
    if not isinstance(user, AuthenticatedUser) or user.access_token.subject is None:
        raise Unauthenticated("this request is not authenticated")
    token = user.access_token
    claims = token.claims or {}
    return Caller(user_id=token.subject or "", email=claims.get("email"), token_id=claims.get("token_id"))
