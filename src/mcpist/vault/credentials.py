"""An account's credential as the upstream HTTP kit takes it (`mcpist.upstream.CredentialSource`).

The secret lives here and in the kit's auth flow only: a tool sees the account's name and fields,
never this object's contents.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from mcpist.errors import MCPistError
from mcpist.modules.api import ApiKeyAuth, AuthSpec, OAuth2Auth
from mcpist.upstream import Credential, basic, bearer, header

Refresh = Callable[[str], Awaitable[str | None]]
"""(the refused secret) -> a fresh secret, or None when the account cannot get one."""
Rejected = Callable[[], Awaitable[MCPistError]]


def credential_for(auth: AuthSpec, secret: str, fields: Mapping[str, str]) -> Credential:
    """The headers an account of a module with `auth` sends."""
    if isinstance(auth, OAuth2Auth):
        user = fields.get(auth.basic_user_field) if auth.basic_user_field else None
        return basic(user, secret) if user else bearer(secret)
    if isinstance(auth, ApiKeyAuth):
        user = fields.get(auth.basic_user_field) if auth.basic_user_field else None
        if user:
            return basic(user, secret)
        if auth.scheme:
            return Credential({auth.header: f"{auth.scheme} {secret}"}, secret)
        return header(auth.header, secret)
    raise ValueError("a module without auth has no credential")


class VaultCredentials:
    """One resolved account's credential for one call; refreshes through the token broker after a 401."""

    def __init__(
        self,
        auth: AuthSpec,
        secret: str,
        fields: Mapping[str, str],
        *,
        refresh: Refresh,
        rejected: Rejected,
    ) -> None:
        self._auth = auth
        self._secret = secret
        self._fields = dict(fields)
        self._refresh = refresh
        self._rejected = rejected

    def __repr__(self) -> str:
        return "VaultCredentials(<hidden>)"

    @property
    def secret(self) -> str:
        """The current secret (for the server's own use and tests; never handed to a tool)."""
        return self._secret

    async def current(self) -> Credential:
        return credential_for(self._auth, self._secret, self._fields)

    async def refresh(self, stale: Credential) -> Credential | None:
        fresh = await self._refresh(stale.token)
        if fresh is None or fresh == stale.token:
            return None
        self._secret = fresh
        return credential_for(self._auth, fresh, self._fields)

    async def rejected(self) -> MCPistError:
        return await self._rejected()
