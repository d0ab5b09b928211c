"""The SDK's `OAuthAuthorizationServerProvider` for MCPist: the protocol is the SDK's, the policy is ours."""

from __future__ import annotations

import logging

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from mcpist.config import AuthSettings

from .clients import ClientDocuments, redirect_uri_problem
from .store import OAuthStore, PendingLimit, StoredCode, StoredRefreshToken

logger = logging.getLogger("mcpist.auth.oauth")


def same_url(a: str, b: str) -> bool:
    """Equal as resource identifiers: scheme and host case and a trailing slash aside."""

    def canonical(url: str) -> str:
        scheme, sep, rest = url.partition("://")
        host, slash, path = rest.partition("/")
        return f"{scheme.lower()}{sep}{host.lower()}{slash}{path}".rstrip("/")

    return canonical(a) == canonical(b)


class MCPistAuthProvider(OAuthAuthorizationServerProvider[StoredCode, StoredRefreshToken, AccessToken]):
    """Issues codes after the consent page, opaque tokens bound to `resource_url`."""

    def __init__(
        self,
        store: OAuthStore,
        documents: ClientDocuments | None,
        settings: AuthSettings,
        *,
        base_url: str,
        resource_url: str,
    ) -> None:
        self.store = store
        self._documents = documents
        self._settings = settings
        self._base_url = base_url
        self.resource_url = resource_url

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id.startswith("https://"):
            return await self._documents.get(client_id) if self._documents else None
        return await self.store.load_client(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        for uri in client_info.redirect_uris or []:
            problem = redirect_uri_problem(uri)
            if problem:
                raise RegistrationError("invalid_redirect_uri", problem)
        await self.store.save_client(client_info)

    def resource_for(self, requested: str | None) -> str:
        """The audience to bind: always `/mcp`'s URL; a client may name it, or the server's origin.

        Raises:
            AuthorizeError: the client asked for another resource (invalid_target).
        """
        if requested is None or same_url(requested, self.resource_url) or same_url(requested, self._base_url):
            return self.resource_url
        raise AuthorizeError("invalid_target", f"this server only issues tokens for {self.resource_url}")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.resource_for(params.resource)
        try:
            request_id = await self.store.save_request(client.client_id, params)
        except PendingLimit as exc:
            raise AuthorizeError("temporarily_unavailable", f"{exc}; try again in a few minutes") from None
        return f"{self._base_url}/oauth/consent?request={request_id}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> StoredCode | None:
        return await self.store.load_code(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: StoredCode
    ) -> OAuthToken:
        if not await self.store.use_code(authorization_code.code):
            # two exchanges raced: the loser is a replay
            await self.store.revoke_grant(authorization_code.grant_id)
            raise TokenError("invalid_grant", "authorization code was already used")
        assert authorization_code.subject is not None and authorization_code.resource is not None
        return await self.store.issue(
            grant_id=authorization_code.grant_id,
            client_id=client.client_id,
            user_id=authorization_code.subject,
            scopes=authorization_code.scopes,
            resource=authorization_code.resource,
            access_ttl_s=self._settings.access_token_ttl_s,
            refresh_ttl_s=self._refresh_ttl(client),
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> StoredRefreshToken | None:
        return await self.store.load_refresh(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: StoredRefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if not await self.store.use_refresh(refresh_token.token):
            await self.store.revoke_grant(refresh_token.grant_id)
            raise TokenError("invalid_grant", "refresh token was already used")
        assert refresh_token.subject is not None and refresh_token.resource is not None
        return await self.store.issue(
            grant_id=refresh_token.grant_id,
            client_id=client.client_id,
            user_id=refresh_token.subject,
            scopes=scopes,
            resource=refresh_token.resource,
            access_ttl_s=self._settings.access_token_ttl_s,
            refresh_ttl_s=self._refresh_ttl(client),
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        return await self.store.load_access(token)

    async def revoke_token(self, token: AccessToken | StoredRefreshToken) -> None:
        grant_id = token.grant_id if isinstance(token, StoredRefreshToken) else (token.claims or {}).get("grant_id")
        if grant_id:
            await self.store.revoke_grant(str(grant_id))

    def _refresh_ttl(self, client: OAuthClientInformationFull) -> int | None:
        return self._settings.refresh_token_ttl_s if "refresh_token" in client.grant_types else None
