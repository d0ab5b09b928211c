"""Connecting an account: the connect URL, the authorization-code flow with PKCE (type B)
or a pasted key (type A), and storing what comes back in the vault.

HTTP lives in routes.py; this file holds the steps, so the CLI and the broker share them.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import httpx
from pydantic import BaseModel

from mcpist.config import VaultSettings
from mcpist.errors import InvalidArgument, MCPistError, NotFound, Unauthenticated, Unavailable
from mcpist.modules.api import Account, ApiKeyAuth, Module, OAuth2Auth, ResolvedAccount
from mcpist.upstream import Credential, ServiceClient, bearer

from .fields import check_fields
from .flows import Flow, FlowStore, StartedFlow, digest
from .oauth import ProviderRejected, ProviderUnavailable, authorization_url, request_token
from .store import AccountInfo, AccountStore, AppStore, Kind, check_account_name, check_role

logger = logging.getLogger("mcpist.vault")

MAX_SECRET_CHARS = 8192


class Services(Protocol):
    """Where services are looked up by name (the module registry)."""

    def module(self, name: str) -> Module | None: ...


@dataclass(frozen=True)
class Service:
    name: str
    auth: ApiKeyAuth | OAuth2Auth


ClientFor = Callable[[Module, ResolvedAccount], ServiceClient]
"""Makes a module's upstream client for an account (the runtime's `service_client`)."""


class OneCredential:
    """The fresh token of a consent, for the module's `on_connect` hook: no refresh, a refusal fails the connect."""

    def __init__(self, token: str, service: str) -> None:
        self._token = token
        self._service = service

    def __repr__(self) -> str:
        return "OneCredential(<hidden>)"

    async def current(self) -> Credential:
        return bearer(self._token)

    async def refresh(self, stale: Credential) -> Credential | None:
        return None

    async def rejected(self) -> MCPistError:
        return Unauthenticated(f"{self._service} refused the token it just issued; start again from your client")


class NoOAuthApp(Unauthenticated):
    """A type B service has no OAuth app registered, so nobody can connect an account yet."""


class Connector:
    def __init__(
        self,
        *,
        services: Services,
        accounts: AccountStore,
        apps: AppStore,
        flows: FlowStore,
        http: httpx.AsyncClient,
        base_url: str,
        settings: VaultSettings,
        client_for: ClientFor | None = None,
        module_settings: Mapping[str, BaseModel] | None = None,
    ) -> None:
        self.client_for = client_for
        self.module_settings = dict(module_settings or {})
        self.services = services
        self.accounts = accounts
        self.apps = apps
        self.flows = flows
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.settings = settings

    def service(self, name: str) -> Service:
        """Raises: NotFound: no loaded module of that name needs an account."""
        module = self.services.module(name)
        if module is None or not isinstance(module.auth, ApiKeyAuth | OAuth2Auth):
            raise NotFound(f"no service {name!r}: no loaded module of that name uses an account", {"service": name})
        auth = module.auth
        if isinstance(auth, OAuth2Auth) and auth.placeholders():
            settings = self.module_settings.get(name) or module.settings_model()
            auth = auth.for_settings(settings)
        return Service(name, auth)

    def connect_url(self, service: str, token: str) -> str:
        return f"{self.base_url}/connect/{service}?t={token}"

    def callback_url(self, service: str) -> str:
        return f"{self.base_url}/connect/{service}/callback"

    async def begin(
        self,
        user_id: str,
        service: str,
        name: str,
        *,
        role: str | None = None,
        elicitation_id: str | None = None,
        read_only: bool = False,
    ) -> str:
        """A connect URL for this user to connect (or re-authorise) `service:name`; `read_only` asks the
        provider only for the service's read-only scopes and marks the account so.

        Raises:
            NotFound: not a service.
            InvalidArgument: the account or role name is invalid, or the service has no read-only scopes.
            NoOAuthApp: a type B service without a registered OAuth app.
        """
        found = self.service(service)
        check_account_name(name)
        if role is not None:
            check_role(role)
        if read_only and isinstance(found.auth, OAuth2Auth) and found.auth.read_only_scopes is None:
            raise InvalidArgument(
                f"{service} declares no read-only scopes; connect without --read-only, or add a key with "
                "`mcpist account add --read-only`",
                {"service": service, "field": "read_only"},
            )
        if isinstance(found.auth, OAuth2Auth) and await self.apps.get(service) is None:
            raise NoOAuthApp(
                f"{service} accounts cannot be connected yet: an admin must first register {service}'s OAuth app "
                f"(client id and secret; its redirect URL is {self.callback_url(service)})",
                {"service": service, "reason": "no_oauth_app"},
            )
        _, token = await self.flows.create(
            user_id, service, name, role=role, elicitation_id=elicitation_id, read_only=read_only
        )
        return self.connect_url(service, token)

    async def start_oauth(self, flow: Flow) -> tuple[str, StartedFlow] | None:
        """The provider's authorization URL for a pending flow, or None if its link was already used.

        Raises:
            NotFound: the service or its OAuth app is gone.
        """
        found = self.service(flow.service)
        assert isinstance(found.auth, OAuth2Auth)
        app = await self.apps.get(flow.service)
        if app is None:
            raise NotFound(f"no OAuth app is registered for {flow.service!r}", {"service": flow.service})
        started = await self.flows.start(flow)
        if started is None:
            return None
        url = authorization_url(
            found.auth.authorize_url,
            app.client_id,
            self.callback_url(flow.service),
            started.state,
            started.code_challenge,
            found.auth.read_only_scopes
            if flow.read_only and found.auth.read_only_scopes is not None
            else found.auth.scopes,
            extra=found.auth.authorize_params,
        )
        return url, started

    async def finish_oauth(self, flow: Flow, code: str, browser_secret: str | None) -> AccountInfo:
        """Exchange the authorization code and store the tokens; the flow is consumed.

        Raises:
            InvalidArgument: the browser is not the one that started the flow, or the link was used.
            Unauthenticated: the provider refused the code.
            Unavailable: the provider's token endpoint is unreachable.
        """
        if flow.browser_hash is None or not hmac.compare_digest(digest(browser_secret or ""), flow.browser_hash):
            raise InvalidArgument("this sign-in was started in another browser; start again from your client")
        verifier = await self.flows.take(flow, "started")
        if verifier is None:
            raise InvalidArgument("this sign-in link was already used; start again from your client")
        found = self.service(flow.service)
        assert isinstance(found.auth, OAuth2Auth)
        app, client_secret = await self.apps.client_secret(flow.service)
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.callback_url(flow.service),
            "code_verifier": verifier,
        }
        try:
            tokens = await request_token(
                self.http,
                found.auth.token_url,
                form,
                app,
                client_secret,
                tries=self.settings.refresh_tries,
                backoff_s=self.settings.refresh_backoff_s,
                json_body=found.auth.exchange_format == "json",
            )
        except ProviderRejected as exc:
            logger.warning("connect %s:%s: the provider refused the code (%s)", flow.service, flow.account_name, exc)
            raise Unauthenticated(
                f"{flow.service} refused the sign-in ({exc.error}); start again from your client",
                {"service": flow.service, "error": exc.error},
            ) from None
        except ProviderUnavailable:
            raise Unavailable(f"{flow.service} could not be reached; start again from your client") from None
        secrets = {"access_token": tokens.access_token}
        if tokens.refresh_token:
            secrets["refresh_token"] = tokens.refresh_token
        fields = await self._connected_fields(flow, tokens.access_token, tokens.scopes or ())
        return await self._store(
            flow, "oauth2", secrets, tokens.expires_at, tokens.scopes or (), fields, tokens.refresh_expires_at
        )

    async def _connected_fields(self, flow: Flow, access_token: str, scopes: Sequence[str]) -> dict[str, str] | None:
        """The fields the module's `on_connect` hook finds with the new token (e.g. the sites it covers)."""
        module = self.services.module(flow.service)
        if module is None or module.connected is None or self.client_for is None:
            return None
        account = Account(service=flow.service, name=flow.account_name, kind="oauth2", scopes=tuple(scopes))
        credential = OneCredential(access_token, flow.service)
        async with self.client_for(module, ResolvedAccount(account, credential)) as http:
            found = dict(await module.connected(http, account))
        return check_fields(module, found, partial=True)

    async def finish_api_key(self, flow: Flow, key: str) -> AccountInfo:
        """Store a pasted API key; the flow is consumed.

        Raises:
            InvalidArgument: the key is empty or too long, or the link was already used.
        """
        key = key.strip()
        if not key or len(key) > MAX_SECRET_CHARS:
            raise InvalidArgument(f"the key must be 1-{MAX_SECRET_CHARS} characters", {"field": "secret"})
        if await self.flows.take(flow, "new") is None:
            raise InvalidArgument("this link was already used; start again from your client")
        return await self._store(flow, "api_key", {"api_key": key}, None, ())

    async def _store(
        self,
        flow: Flow,
        kind: Kind,
        secrets: dict[str, str],
        expires_at: datetime | None,
        scopes: Sequence[str],
        fields: dict[str, str] | None = None,
        refresh_expires_at: datetime | None = None,
    ) -> AccountInfo:
        info = await self.accounts.put(
            fields=fields,
            read_only=flow.read_only,
            refresh_expires_at=refresh_expires_at,
            service=flow.service,
            name=flow.account_name,
            kind=kind,
            secrets=secrets,
            user_id=None if flow.role is not None else flow.user_id,
            role=flow.role,
            expires_at=expires_at,
            scopes=scopes,
        )
        owner = f"role {flow.role}" if flow.role is not None else f"user {flow.user_id}"
        logger.info("connected account %s for %s", info.label, owner)
        return info
