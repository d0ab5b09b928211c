"""The vault's records: accounts and OAuth apps, their secrets sealed per record.

Secrets go in as plain dicts and come out only through `AccountStore.secrets` and
`AppStore.client_secret`, which the token broker and the connect flow call; nothing that
lists or describes a record carries them.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.storage.tables import users

from .crypto import MissingKey, Sealed, aad, seal, unseal
from .keys import KeySource
from .tables import accounts, oauth_apps

ACCOUNT_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
ROLE_NAME_RE = re.compile(r"^\S{1,64}$")
DEFAULT_ACCOUNT = "default"

Kind = Literal["api_key", "oauth2"]
Status = Literal["connected", "reauth"]
AuthMethod = Literal["client_secret_post", "client_secret_basic"]


def utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def check_account_name(name: str) -> str:
    """Raises: InvalidArgument: not 1-64 of a-z, 0-9, '.', '_', '-' starting with a letter or digit."""
    if not ACCOUNT_NAME_RE.fullmatch(name):
        raise InvalidArgument(
            f"invalid account name {name!r}: use 1-64 of a-z, 0-9, '.', '_' or '-'", {"field": "account"}
        )
    return name


def check_role(role: str) -> str:
    """Raises: InvalidArgument: not 1-64 characters without spaces."""
    if not ROLE_NAME_RE.fullmatch(role):
        raise InvalidArgument(f"invalid role name {role!r}: use 1-64 characters without spaces", {"field": "role"})
    return role


class Sealer:
    """Seals and opens JSON payloads with the current keyring."""

    def __init__(self, keys: KeySource) -> None:
        self.keys = keys

    def seal(self, identity: bytes, payload: dict[str, str]) -> Sealed:
        return seal(self.keys.keyring(), identity, json.dumps(payload).encode())

    def open(self, identity: bytes, sealed: Sealed) -> dict[str, str]:
        """Raises: MissingKey, TamperedRecord (see crypto.unseal)."""
        try:
            plain = unseal(self.keys.keyring(), identity, sealed)
        except MissingKey:
            # another process may have rotated the key since this one read the key files
            plain = unseal(self.keys.keyring(force=True), identity, sealed)
        value: dict[str, str] = json.loads(plain)
        return value


def sealed_values(sealed: Sealed) -> dict[str, Any]:
    return {"kek_id": sealed.kek_id, "wrapped_key": sealed.wrapped_key, "ciphertext": sealed.ciphertext}


def sealed_of(row: Any) -> Sealed:
    return Sealed(kek_id=row.kek_id, wrapped_key=bytes(row.wrapped_key), ciphertext=bytes(row.ciphertext))


@dataclass(frozen=True)
class AccountInfo:
    """An account as anyone may see it: never its secrets."""

    id: str
    service: str
    name: str
    user_id: str | None
    user_email: str | None
    role: str | None
    kind: Kind
    status: Status
    expires_at: datetime | None
    scopes: tuple[str, ...]
    fields: dict[str, str]
    version: int
    lease_until: datetime | None
    created_at: datetime
    updated_at: datetime
    read_only: bool = False
    refreshable: bool = False
    """Holds a refresh token: the broker renews the access token by itself."""
    refresh_expires_at: datetime | None = None
    """When the refresh token itself runs out, if the provider said (then the account must be connected again)."""

    @property
    def shared(self) -> bool:
        return self.role is not None

    @property
    def label(self) -> str:
        return f"{self.service}:{self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "service": self.service,
            "name": self.name,
            "owner": f"role:{self.role}" if self.role is not None else f"user:{self.user_email or self.user_id}",
            "kind": self.kind,
            "status": self.status,
            "expires_at": self.expires_at.isoformat() if self.expires_at else None,
            "read_only": self.read_only,
            "refreshable": self.refreshable,
            "refresh_expires_at": self.refresh_expires_at.isoformat() if self.refresh_expires_at else None,
            "scopes": list(self.scopes),
            "fields": dict(self.fields),
            "updated_at": self.updated_at.isoformat(),
        }


def account_identity(
    account_id: str, service: str, name: str, user_id: str | None, role: str | None, kind: str
) -> bytes:
    return aad("account", account_id, service, name, user_id, role, kind)


def _identity_of(row: Any) -> bytes:
    return account_identity(row.id, row.service, row.name, row.user_id, row.role, row.kind)


_INFO_COLUMNS = (
    accounts.c.id,
    accounts.c.service,
    accounts.c.name,
    accounts.c.user_id,
    users.c.email,
    accounts.c.role,
    accounts.c.kind,
    accounts.c.status,
    accounts.c.expires_at,
    accounts.c.scopes,
    accounts.c.fields,
    accounts.c.version,
    accounts.c.lease_until,
    accounts.c.created_at,
    accounts.c.updated_at,
    accounts.c.read_only,
    accounts.c.refreshable,
    accounts.c.refresh_expires_at,
)


def _info(row: Any) -> AccountInfo:
    return AccountInfo(
        id=row.id,
        service=row.service,
        name=row.name,
        user_id=row.user_id,
        user_email=row.email,
        role=row.role,
        kind=row.kind,
        status=row.status,
        expires_at=utc(row.expires_at),
        scopes=tuple((row.scopes or "").split()),
        fields=_fields(row.fields),
        version=row.version,
        lease_until=utc(row.lease_until),
        created_at=utc(row.created_at) or row.created_at,
        updated_at=utc(row.updated_at) or row.updated_at,
        read_only=bool(row.read_only),
        refreshable=bool(row.refreshable),
        refresh_expires_at=utc(row.refresh_expires_at),
    )


def _fields(text: str | None) -> dict[str, str]:
    if not text:
        return {}
    value = json.loads(text)
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _select_info() -> sa.Select[Any]:
    return sa.select(*_INFO_COLUMNS).select_from(accounts.outerjoin(users, users.c.id == accounts.c.user_id))


class AccountStore:
    """Accounts: one credential set for one service, owned by a user (personal) or a role (shared)."""

    def __init__(self, engine: AsyncEngine, sealer: Sealer) -> None:
        self.engine = engine
        self.sealer = sealer

    async def put(
        self,
        *,
        service: str,
        name: str,
        kind: Kind,
        secrets: dict[str, str],
        user_id: str | None = None,
        role: str | None = None,
        expires_at: datetime | None = None,
        scopes: Sequence[str] = (),
        fields: Mapping[str, str] | None = None,
        read_only: bool = False,
        refresh_expires_at: datetime | None = None,
    ) -> AccountInfo:
        """Create the account or replace its credential; either way it ends connected.

        `fields` (the module's non-secret account fields) replace the stored ones; None keeps them.
        `read_only` marks an account the server runs only read-only tools with.

        Raises:
            InvalidArgument: a name is invalid, or not exactly one of user_id and role is given.
            Conflict: concurrent writers kept colliding.
        """
        check_account_name(name)
        if (user_id is None) == (role is None):
            raise InvalidArgument("an account belongs to exactly one user or one role", {"field": "role"})
        if role is not None:
            check_role(role)
        owner = accounts.c.user_id == user_id if user_id is not None else accounts.c.role == role
        now = datetime.now(UTC)
        common: dict[str, Any] = {
            "status": "connected",
            "expires_at": expires_at,
            "scopes": " ".join(scopes) or None,
            "read_only": read_only,
            "refreshable": bool(secrets.get("refresh_token")),
            "refresh_expires_at": refresh_expires_at,
        }
        if fields is not None:
            common["fields"] = json.dumps(dict(sorted(fields.items())), ensure_ascii=False) if fields else None
        for _ in range(3):
            async with self.engine.begin() as conn:
                row = (
                    await conn.execute(
                        sa.select(accounts.c.id, accounts.c.version).where(
                            owner, accounts.c.service == service, accounts.c.name == name
                        )
                    )
                ).first()
                account_id = row.id if row else str(uuid.uuid4())
                sealed = self.sealer.seal(account_identity(account_id, service, name, user_id, role, kind), secrets)
                values = {**common, **sealed_values(sealed), "kind": kind, "lease_until": None, "updated_at": now}
                if row is not None:
                    await conn.execute(
                        accounts.update().where(accounts.c.id == account_id).values(**values, version=row.version + 1)
                    )
                    break
                try:
                    async with conn.begin_nested():
                        await conn.execute(
                            accounts.insert().values(
                                id=account_id,
                                service=service,
                                name=name,
                                user_id=user_id,
                                role=role,
                                version=1,
                                created_at=now,
                                **values,
                            )
                        )
                    break
                except sa.exc.IntegrityError:
                    continue  # made concurrently: update it instead
        else:
            raise Conflict(f"account {service}:{name} is being changed concurrently; try again", {"account": name})
        info = await self.get(account_id)
        assert info is not None
        return info

    async def get(self, account_id: str) -> AccountInfo | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(_select_info().where(accounts.c.id == account_id))).first()
        return _info(row) if row else None

    async def find(
        self,
        service: str | None = None,
        *,
        user_id: str | None = None,
        roles: Iterable[str] | None = None,
        name: str | None = None,
    ) -> list[AccountInfo]:
        """Accounts matching every filter given; `user_id` and `roles` together match either owner."""
        query = _select_info()
        if service is not None:
            query = query.where(accounts.c.service == service)
        if name is not None:
            query = query.where(accounts.c.name == name)
        owners: list[sa.ColumnElement[bool]] = []
        if user_id is not None:
            owners.append(accounts.c.user_id == user_id)
        if roles is not None:
            owners.append(accounts.c.role.in_(list(roles)))
        if owners:
            query = query.where(sa.or_(*owners))
        query = query.order_by(accounts.c.service, accounts.c.role.is_not(None), accounts.c.role, accounts.c.name)
        async with self.engine.connect() as conn:
            return [_info(row) for row in await conn.execute(query)]

    async def secrets(self, account_id: str) -> tuple[AccountInfo, dict[str, str]]:
        """The account and its decrypted credential, read together.

        Raises:
            NotFound: no such account.
            TamperedRecord: the stored credential fails authentication.
            MissingKey: its key-encryption key is not held.
        """
        query = _select_info().add_columns(accounts.c.kek_id, accounts.c.wrapped_key, accounts.c.ciphertext)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query.where(accounts.c.id == account_id))).first()
        if row is None:
            raise NotFound("the account no longer exists", {"account_id": account_id})
        return _info(row), self.sealer.open(_identity_of(row), sealed_of(row))

    async def remove(self, service: str, name: str, *, user_id: str | None = None, role: str | None = None) -> None:
        """Raises: NotFound: no such account for this owner."""
        owner = accounts.c.user_id == user_id if user_id is not None else accounts.c.role == role
        async with self.engine.begin() as conn:
            result = await conn.execute(
                accounts.delete().where(owner, accounts.c.service == service, accounts.c.name == name)
            )
        if result.rowcount == 0:
            raise NotFound(f"no account {service}:{name}", {"service": service, "account": name})

    async def mark_reauth(self, account_id: str, version: int) -> bool:
        """Flag the account as needing re-authorisation unless it changed since `version`."""
        async with self.engine.begin() as conn:
            result = await conn.execute(
                accounts.update()
                .where(accounts.c.id == account_id, accounts.c.version == version)
                .values(status="reauth", lease_until=None, version=version + 1, updated_at=datetime.now(UTC))
            )
        return bool(result.rowcount)

    async def claim_refresh(self, account_id: str, version: int, now: datetime, until: datetime) -> bool:
        """Take the account's refresh lease (compare-and-swap on version and lease); False if taken or stale."""
        async with self.engine.begin() as conn:
            result = await conn.execute(
                accounts.update()
                .where(
                    accounts.c.id == account_id,
                    accounts.c.version == version,
                    sa.or_(accounts.c.lease_until.is_(None), accounts.c.lease_until < now),
                )
                .values(lease_until=until)
            )
        return bool(result.rowcount)

    async def release_refresh(self, account_id: str, version: int) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                accounts.update()
                .where(accounts.c.id == account_id, accounts.c.version == version)
                .values(lease_until=None)
            )

    async def store_refresh(
        self,
        info: AccountInfo,
        secrets: dict[str, str],
        expires_at: datetime | None,
        scopes: Sequence[str] | None,
        refresh_expires_at: datetime | None = None,
    ) -> bool:
        """Save refreshed tokens unless the account changed since `info.version` (then keep the newer).

        A rotated refresh token (the provider sent a new one) replaces the old one in the same update.
        """
        assert info.user_id is not None or info.role is not None
        identity = account_identity(info.id, info.service, info.name, info.user_id, info.role, info.kind)
        sealed = self.sealer.seal(identity, secrets)
        values: dict[str, Any] = {
            **sealed_values(sealed),
            "expires_at": expires_at,
            "refreshable": bool(secrets.get("refresh_token")),
            "status": "connected",
            "lease_until": None,
            "version": info.version + 1,
            "updated_at": datetime.now(UTC),
        }
        if scopes is not None:
            values["scopes"] = " ".join(scopes) or None
        if refresh_expires_at is not None:
            values["refresh_expires_at"] = refresh_expires_at
        async with self.engine.begin() as conn:
            result = await conn.execute(
                accounts.update().where(accounts.c.id == info.id, accounts.c.version == info.version).values(**values)
            )
        return bool(result.rowcount)


@dataclass(frozen=True)
class OAuthApp:
    """An OAuth client registered for a service; the client secret is not here."""

    service: str
    client_id: str
    auth_method: AuthMethod
    updated_at: datetime


def app_identity(service: str, client_id: str) -> bytes:
    return aad("oauth_app", service, client_id)


class AppStore:
    """OAuth apps (client id and secret) that admins register per service."""

    def __init__(self, engine: AsyncEngine, sealer: Sealer) -> None:
        self.engine = engine
        self.sealer = sealer

    async def put(
        self, service: str, client_id: str, client_secret: str, auth_method: AuthMethod = "client_secret_post"
    ) -> OAuthApp:
        """Register or replace the app; an empty secret means a public client (PKCE only).

        Raises:
            InvalidArgument: the client id is empty or too long.
        """
        if not client_id or len(client_id) > 255 or client_id != client_id.strip():
            raise InvalidArgument("the client id must be 1-255 characters", {"field": "client_id"})
        now = datetime.now(UTC)
        sealed = self.sealer.seal(app_identity(service, client_id), {"client_secret": client_secret})
        values = {"client_id": client_id, "auth_method": auth_method, "updated_at": now, **sealed_values(sealed)}
        async with self.engine.begin() as conn:
            await _upsert_app(conn, service, values, now)
        app = await self.get(service)
        assert app is not None
        return app

    async def get(self, service: str) -> OAuthApp | None:
        query = sa.select(
            oauth_apps.c.service, oauth_apps.c.client_id, oauth_apps.c.auth_method, oauth_apps.c.updated_at
        ).where(oauth_apps.c.service == service)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        return OAuthApp(row.service, row.client_id, row.auth_method, utc(row.updated_at) or row.updated_at)

    async def list(self) -> list[OAuthApp]:
        query = sa.select(
            oauth_apps.c.service, oauth_apps.c.client_id, oauth_apps.c.auth_method, oauth_apps.c.updated_at
        ).order_by(oauth_apps.c.service)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [OAuthApp(r.service, r.client_id, r.auth_method, utc(r.updated_at) or r.updated_at) for r in rows]

    async def client_secret(self, service: str) -> tuple[OAuthApp, str]:
        """The app and its client secret.

        Raises:
            NotFound: no app is registered for the service.
            TamperedRecord, MissingKey: see crypto.unseal.
        """
        query = sa.select(oauth_apps).where(oauth_apps.c.service == service)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            raise NotFound(f"no OAuth app is registered for {service!r}", {"service": service})
        secret = self.sealer.open(app_identity(row.service, row.client_id), sealed_of(row))["client_secret"]
        return OAuthApp(row.service, row.client_id, row.auth_method, utc(row.updated_at) or row.updated_at), secret

    async def remove(self, service: str) -> None:
        """Raises: NotFound: no app is registered for the service."""
        async with self.engine.begin() as conn:
            result = await conn.execute(oauth_apps.delete().where(oauth_apps.c.service == service))
        if result.rowcount == 0:
            raise NotFound(f"no OAuth app is registered for {service!r}", {"service": service})


async def _upsert_app(conn: AsyncConnection, service: str, values: dict[str, Any], now: datetime) -> None:
    result = await conn.execute(oauth_apps.update().where(oauth_apps.c.service == service).values(**values))
    if result.rowcount == 0:
        await conn.execute(oauth_apps.insert().values(service=service, created_at=now, **values))
