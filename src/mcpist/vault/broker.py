"""The token broker: which account a tool call runs with, and a fresh credential for it.

Resolution order (seed 001 §2.4.2): the named account; else the user's personal account;
else a shared account of one of the caller's roles; else URL elicitation (ConnectRequired).

A type B access token is refreshed `refresh_ahead_s` before it expires. Within a process, one
lock per account makes concurrent calls share one refresh. Across processes (replicas on one
PostgreSQL, or several processes on one SQLite file) a refresh lease taken by compare-and-swap
on the row's version makes one process refresh while the others wait for the new version;
tokens are saved only if the version is unchanged, so a newer credential is never overwritten.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import httpx
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.config import VaultSettings
from mcpist.errors import ConnectRequired, InvalidArgument, MCPistError, NotFound, Unauthenticated, Unavailable
from mcpist.modules.api import Account, AccountChoice, ApiKeyAuth, Caller, Module, OAuth2Auth, ResolvedAccount
from mcpist.observe.metrics import token_refreshed

from .connect import ClientFor, Connector, Services
from .credentials import VaultCredentials
from .flows import FlowStore
from .keys import KeySource
from .oauth import ProviderRejected, ProviderUnavailable, request_token
from .store import DEFAULT_ACCOUNT, AccountInfo, AccountStore, AppStore, Sealer, check_account_name

logger = logging.getLogger("mcpist.vault")

RolesOf = Callable[[Caller], Awaitable[Sequence[str]]]
Clock = Callable[[], datetime]


async def no_roles(caller: Caller) -> list[str]:
    """Until roles exist: nobody holds a role, so no shared account applies."""
    return []


def _now() -> datetime:
    return datetime.now(UTC)


class TokenBroker:
    """The vault-backed `AccountResolver` (see mcpist.runtime)."""

    def __init__(
        self,
        *,
        engine: AsyncEngine,
        keys: KeySource,
        services: Services,
        http: httpx.AsyncClient,
        base_url: str,
        settings: VaultSettings,
        roles_of: RolesOf = no_roles,
        clock: Clock = _now,
        client_for: ClientFor | None = None,
        module_settings: Mapping[str, BaseModel] | None = None,
    ) -> None:
        self.settings = settings
        self.roles_of = roles_of
        self.clock = clock
        self.http = http
        sealer = Sealer(keys)
        self.keys = keys
        self.accounts = AccountStore(engine, sealer)
        self.apps = AppStore(engine, sealer)
        self.flows = FlowStore(engine, sealer, settings.connect_ttl_s)
        self.connector = Connector(
            services=services,
            accounts=self.accounts,
            apps=self.apps,
            flows=self.flows,
            http=http,
            base_url=base_url,
            settings=settings,
            client_for=client_for,
            module_settings=module_settings,
        )
        self._locks: dict[str, anyio.Lock] = {}

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> ResolvedAccount | None:
        """The credential for `module` (a service) as `caller`, named `account` or chosen by the resolution order.

        Raises:
            InvalidArgument: the name is invalid, or several accounts fit and none is named.
            ConnectRequired: no account fits, or the caller's own account needs re-authorisation.
            Unauthenticated: a shared account needs an admin, or the service has no OAuth app.
            Unavailable: the provider could not refresh an expired token.
            TamperedRecord, MissingKey: the stored credential cannot be opened.
        """
        if not isinstance(module.auth, ApiKeyAuth | OAuth2Auth):
            return None
        name = check_account_name(account) if account is not None else None
        roles = list(dict.fromkeys(await self.roles_of(caller)))
        info = await self._choose(caller, module.name, name, roles)
        if info is None:
            raise await self._connect_required(caller, module.name, name or DEFAULT_ACCOUNT, reauth=False)
        if info.status == "reauth":
            raise await self._reauth_required(caller, info)
        if info.kind == "api_key":
            info, secrets = await self.accounts.secrets(info.id)
            return self._account(caller, module, info, secrets["api_key"])
        return await self._oauth_account(caller, module, info)

    async def usable(self, caller: Caller, module: Module) -> AccountChoice:
        """The account names `caller` may pass for `module`, and the one chosen when none is named."""
        if not isinstance(module.auth, ApiKeyAuth | OAuth2Auth):
            return AccountChoice((), None)
        roles = list(dict.fromkeys(await self.roles_of(caller)))
        found = await self.accounts.find(module.name, user_id=caller.user_id, roles=roles)
        usable = [a for a in found if (a.user_id == caller.user_id and a.role is None) or a.role in roles]
        try:
            chosen = await self._choose(caller, module.name, None, roles)
        except InvalidArgument:
            chosen = None
        return AccountChoice(tuple(sorted({a.name for a in usable})), chosen.name if chosen else None)

    async def refresh_refused(self, caller: Caller, module: Module, account_id: str, refused: str) -> str | None:
        """A fresh secret after the upstream refused `refused` (a 401), or None if there is none to get.

        Another call may have refreshed meanwhile: its secret is returned without a new refresh.

        Raises:
            ConnectRequired, Unauthenticated, Unavailable: as `resolve` does when a refresh fails.
        """
        info, secrets = await self.accounts.secrets(account_id)
        key = "api_key" if info.kind == "api_key" else "access_token"
        if secrets.get(key) != refused:
            return secrets.get(key)
        if info.kind == "api_key":
            return None
        fresh = await self._oauth_account(caller, module, info, refused=refused)
        assert isinstance(fresh.credentials, VaultCredentials)
        if fresh.credentials.secret == refused:  # the provider failed transiently; the old token is all there is
            raise Unavailable(
                f"{info.service} could not refresh account {info.name!r}; try again later",
                {"service": info.service, "account": info.name},
            )
        return fresh.credentials.secret

    async def refused(self, caller: Caller, account_id: str, service: str, name: str) -> MCPistError:
        """The error for an account whose credential the upstream still refuses after a refresh."""
        info = await self.accounts.get(account_id)
        if info is None:
            return NotFound("the account was removed", {"service": service, "account": name})
        logger.warning("account %s (%s): the upstream refused its credential", info.label, info.id)
        error = await self._reauth_required(caller, info)
        return error if isinstance(error, MCPistError) else Unauthenticated(str(error))

    async def _choose(self, caller: Caller, service: str, name: str | None, roles: list[str]) -> AccountInfo | None:
        found = await self.accounts.find(service, user_id=caller.user_id, roles=roles, name=name)
        personal = [a for a in found if a.user_id == caller.user_id and a.role is None]
        shared = sorted(
            (a for a in found if a.user_id is None and a.role in roles),
            key=lambda a: (roles.index(a.role or ""), a.name),
        )
        for group in (personal, shared):
            if name is None and len(group) > 1:
                defaults = [a for a in group if a.name == DEFAULT_ACCOUNT]
                group = defaults or group
                if len({a.name for a in group}) > 1:
                    names = sorted({a.name for a in group})
                    raise InvalidArgument(
                        f"several {service} accounts fit: {', '.join(names)}; name one with 'account'",
                        {"service": service, "accounts": names},
                    )
            if group:
                return group[0]
        return None

    def _account(self, caller: Caller, module: Module, info: AccountInfo, secret: str) -> ResolvedAccount:
        account = Account(
            service=info.service,
            name=info.name,
            kind=info.kind,
            shared_by_role=info.role,
            fields=dict(info.fields),
            scopes=info.scopes,
            expires_at=info.expires_at,
            read_only=info.read_only,
        )

        async def refresh(refused: str) -> str | None:
            return await self.refresh_refused(caller, module, info.id, refused)

        async def rejected() -> MCPistError:
            return await self.refused(caller, info.id, info.service, info.name)

        credentials = VaultCredentials(module.auth, secret, info.fields, refresh=refresh, rejected=rejected)
        return ResolvedAccount(account, credentials)

    async def _connect_required(
        self, caller: Caller, service: str, name: str, *, reauth: bool, read_only: bool = False, hint: str = ""
    ) -> ConnectRequired:
        elicitation_id = uuid.uuid4().hex
        url = await self.connector.begin(
            caller.user_id, service, name, elicitation_id=elicitation_id, read_only=read_only
        )
        what = "needs to be connected again" if reauth else "is not connected"
        how = "enter its key" if self.connector.service(service).auth.kind == "api_key" else f"sign in to {service}"
        return ConnectRequired(
            f"Your {service} account {name!r} {what}. Open the link to {how}, then try again.{hint}",
            service=service,
            connect_url=url,
            elicitation_id=elicitation_id,
        )

    async def _reauth_required(self, caller: Caller, info: AccountInfo, *, rejected: bool = False) -> Exception:
        """The error for an account that must be connected again; `rejected`: the provider refused its refresh
        token, which the module's `reauth_hint` may explain."""
        auth = self.connector.service(info.service).auth
        hint = f" {auth.reauth_hint}" if rejected and isinstance(auth, OAuth2Auth) and auth.reauth_hint else ""
        if info.role is not None:
            return Unauthenticated(
                f"the shared {info.service} account {info.name!r} of role {info.role!r} needs re-authorisation "
                f"by an admin.{hint}",
                {"service": info.service, "account": info.name, "role": info.role, "reason": "reauth_required"},
            )
        return await self._connect_required(
            caller, info.service, info.name, reauth=True, read_only=info.read_only, hint=hint
        )

    def _due(self, info: AccountInfo, now: datetime) -> bool:
        if info.expires_at is None:
            return False
        return info.expires_at - timedelta(seconds=self.settings.refresh_ahead_s) <= now

    @staticmethod
    def _valid(info: AccountInfo, now: datetime) -> bool:
        return info.expires_at is None or info.expires_at > now

    async def _oauth_account(
        self, caller: Caller, module: Module, info: AccountInfo, *, refused: str | None = None
    ) -> ResolvedAccount:
        """The account with a usable access token; `refused` is one the upstream refused, refreshed regardless
        of its expiry unless another call replaced it meanwhile."""

        def due(info: AccountInfo, secrets: dict[str, str], now: datetime) -> bool:
            return self._due(info, now) or (refused is not None and secrets.get("access_token") == refused)

        info, secrets = await self.accounts.secrets(info.id)
        now = self.clock()
        if not due(info, secrets, now):
            return self._account(caller, module, info, secrets["access_token"])
        lock = self._locks.setdefault(info.id, anyio.Lock())
        if lock.locked() and self._valid(info, now) and refused is None:
            return self._account(
                caller, module, info, secrets["access_token"]
            )  # refreshed ahead; the old one still works
        async with lock:
            while True:
                info, secrets = await self.accounts.secrets(info.id)
                now = self.clock()
                if info.status == "reauth":
                    raise await self._reauth_required(caller, info)
                if not due(info, secrets, now):
                    return self._account(caller, module, info, secrets["access_token"])
                until = now + timedelta(seconds=self.settings.refresh_lease_s)
                if await self.accounts.claim_refresh(info.id, info.version, now, until):
                    return await self._refresh(caller, module, info, secrets)
                if self._valid(info, now) and refused is None:
                    return self._account(caller, module, info, secrets["access_token"])
                await self._await_other_process(info)

    async def _await_other_process(self, info: AccountInfo) -> None:
        """Wait until the version changes or the other process's lease runs out."""
        with anyio.move_on_after(self.settings.refresh_lease_s + self.settings.refresh_poll_s):
            while True:
                await anyio.sleep(self.settings.refresh_poll_s)
                current = await self.accounts.get(info.id)
                if current is None:
                    raise NotFound("the account was removed", {"service": info.service, "account": info.name})
                if current.version != info.version or current.lease_until is None:
                    return
                if current.lease_until < self.clock():
                    return

    async def _refresh(
        self, caller: Caller, module: Module, info: AccountInfo, secrets: dict[str, str]
    ) -> ResolvedAccount:
        auth = self.connector.service(info.service).auth
        assert isinstance(auth, OAuth2Auth)
        refresh_token = secrets.get("refresh_token")
        if not refresh_token:
            await self.accounts.mark_reauth(info.id, info.version)
            token_refreshed(info.service, "no_refresh_token")
            logger.warning("account %s (%s) expired and has no refresh token", info.label, info.id)
            raise await self._reauth_required(caller, info)
        # a rotated refresh token must reach the database even if the caller gives up meanwhile
        with anyio.fail_after(self.settings.refresh_lease_s, shield=True):
            try:
                app, client_secret = await self.apps.client_secret(info.service)
                form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
                if auth.refresh_scopes:
                    scopes = auth.read_only_scopes if info.read_only and auth.read_only_scopes else auth.scopes
                    form["scope"] = " ".join(scopes)
                tokens = await request_token(
                    self.http,
                    auth.token_url,
                    form,
                    app,
                    client_secret,
                    tries=self.settings.refresh_tries,
                    backoff_s=self.settings.refresh_backoff_s,
                    json_body=auth.exchange_format == "json",
                )
            except ProviderRejected as exc:
                token_refreshed(info.service, "rejected" if exc.error == "invalid_grant" else "refused")
                if exc.error == "invalid_grant":
                    await self.accounts.mark_reauth(info.id, info.version)
                    logger.warning("account %s (%s): the provider rejected the refresh token", info.label, info.id)
                    raise await self._reauth_required(caller, info, rejected=True) from None
                await self.accounts.release_refresh(info.id, info.version)
                logger.warning("account %s (%s): refresh refused: %s", info.label, info.id, exc)
                raise Unauthenticated(
                    f"{info.service} refused to refresh account {info.name!r} ({exc.error}); "
                    f"an admin should check {info.service}'s OAuth app registration",
                    {"service": info.service, "account": info.name, "error": exc.error},
                ) from None
            except (ProviderUnavailable, NotFound) as exc:
                token_refreshed(info.service, "unavailable")
                await self.accounts.release_refresh(info.id, info.version)
                if self._valid(info, self.clock()):
                    logger.warning("account %s: refresh ahead of expiry failed; using the current token", info.label)
                    return self._account(caller, module, info, secrets["access_token"])
                if isinstance(exc, NotFound):
                    raise Unauthenticated(exc.message, exc.data) from None
                raise Unavailable(
                    f"{info.service} could not refresh account {info.name!r}; try again later",
                    {"service": info.service, "account": info.name},
                ) from None
            except BaseException:
                token_refreshed(info.service, "error")
                await self.accounts.release_refresh(info.id, info.version)
                raise
            token_refreshed(info.service, "ok")
            fresh = {"access_token": tokens.access_token, "refresh_token": tokens.refresh_token or refresh_token}
            saved = await self.accounts.store_refresh(
                info, fresh, tokens.expires_at, tokens.scopes, tokens.refresh_expires_at
            )
        if saved:
            logger.info("refreshed account %s (%s)", info.label, info.id)
            current = await self.accounts.get(info.id)
            info = current or info
        else:
            logger.info("account %s changed during its refresh; keeping the newer credential", info.label)
        return self._account(caller, module, info, tokens.access_token)


def broker_for(
    *,
    engine: AsyncEngine,
    data_dir: Path,
    services: Services,
    http: httpx.AsyncClient,
    base_url: str,
    settings: VaultSettings,
    roles_of: RolesOf = no_roles,
    client_for: ClientFor | None = None,
    module_settings: Mapping[str, BaseModel] | None = None,
) -> TokenBroker:
    """A broker over a database, the loaded modules (`services`) and an HTTP client for token endpoints.

    Raises:
        ConfigError: the key-encryption key is missing or malformed.
    """
    keys = KeySource(settings, data_dir)
    keys.keyring()  # fail at start, not at the first call
    return TokenBroker(
        engine=engine,
        keys=keys,
        services=services,
        http=http,
        base_url=base_url,
        settings=settings,
        roles_of=roles_of,
        client_for=client_for,
        module_settings=module_settings,
    )
