"""Command-line actions for accounts, OAuth apps and the vault key (the lead wires them into mcpist.cli).

    mcpist account add SERVICE [--name N] [--role R] [--user EMAIL] [--set FIELD=VALUE]... [--read-only] --token-stdin
    mcpist account connect SERVICE [--name N] [--role R] [--user EMAIL] [--read-only]   prints the connect URL
    mcpist account list [--user EMAIL | --all]                               never shows secrets
    mcpist account remove SERVICE [--name N] [--role R] [--user EMAIL]
    mcpist app register SERVICE --client-id ID --client-secret-stdin [--basic-auth]
    mcpist app list | mcpist app remove SERVICE
    mcpist vault rotate-key | rewrap | prune-keys | status

Every action runs as the owner (an admin) unless --user names another user.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.config import VaultSettings
from mcpist.errors import InvalidArgument, NotFound
from mcpist.storage.tables import users

from . import rotation
from .broker import TokenBroker
from .connect import MAX_SECRET_CHARS
from .fields import check_fields, parse_fields
from .keys import KeySource
from .store import DEFAULT_ACCOUNT, AccountInfo, AuthMethod, OAuthApp

COMMANDS = ("account", "app", "vault")


def read_secret(stream: TextIO) -> str:
    """One secret from standard input (the first line; surrounding whitespace dropped).

    Raises:
        InvalidArgument: empty or longer than 8192 characters.
    """
    value = stream.readline(MAX_SECRET_CHARS + 2).strip()
    if not value or len(value) > MAX_SECRET_CHARS:
        raise InvalidArgument(f"expected one secret of 1-{MAX_SECRET_CHARS} characters on standard input")
    return value


@dataclass(frozen=True)
class VaultAdmin:
    """What the account, app and vault commands act through: the broker, and who the owner is."""

    broker: TokenBroker
    owner_id: str
    data_dir: Path
    sealed: tuple[rotation.SealedRows, ...] = ()
    """Records a layer above seals with the vault's key (the UI's SMTP password): rotated and counted too."""

    @property
    def engine(self) -> AsyncEngine:
        return self.broker.accounts.engine

    @property
    def settings(self) -> VaultSettings:
        return self.broker.settings


async def _user_id(admin: VaultAdmin, email: str | None) -> str:
    if email is None:
        return admin.owner_id
    async with admin.engine.connect() as conn:
        user_id = (await conn.execute(sa.select(users.c.id).where(users.c.email == email))).scalar()
    if user_id is None:
        raise NotFound(f"no user with email {email!r}", {"field": "user"})
    return str(user_id)


async def account_add(
    admin: VaultAdmin,
    service: str,
    secret: str,
    *,
    name: str = DEFAULT_ACCOUNT,
    role: str | None = None,
    user_email: str | None = None,
    fields: Mapping[str, str] | None = None,
    read_only: bool = False,
) -> AccountInfo:
    """Store a long-lived token or API key (type A; also a personal access token for a type B service),
    with the module's account fields (`--set NAME=VALUE`).

    Raises:
        NotFound: no such service or user.
        InvalidArgument: a name, a field or the secret is invalid.
    """
    broker = admin.broker
    broker.connector.service(service)
    module = broker.connector.services.module(service)
    assert module is not None
    checked = check_fields(module, fields or {})
    if not secret or len(secret) > MAX_SECRET_CHARS:
        raise InvalidArgument(f"the secret must be 1-{MAX_SECRET_CHARS} characters", {"field": "secret"})
    user_id = None if role is not None else await _user_id(admin, user_email)
    return await broker.accounts.put(
        service=service,
        name=name,
        kind="api_key",
        secrets={"api_key": secret},
        user_id=user_id,
        role=role,
        fields=checked,
        read_only=read_only,
    )


async def account_connect(
    admin: VaultAdmin,
    service: str,
    *,
    name: str = DEFAULT_ACCOUNT,
    role: str | None = None,
    user_email: str | None = None,
    read_only: bool = False,
) -> str:
    """A connect URL to open in any browser that reaches the server; the account appears once it is used.
    `read_only` asks only for the service's read-only scopes, and the server then runs only read-only tools.

    Raises:
        NotFound: no such service or user.
        InvalidArgument: a name is invalid, or the service has no read-only scopes.
        NoOAuthApp: a type B service without a registered OAuth app.
    """
    user_id = await _user_id(admin, user_email)
    return await admin.broker.connector.begin(user_id, service, name, role=role, read_only=read_only)


async def account_list(
    admin: VaultAdmin, *, user_email: str | None = None, everyone: bool = False
) -> list[AccountInfo]:
    """The user's accounts and every shared account, or every account with `everyone`; never secrets."""
    found = await admin.broker.accounts.find()
    if everyone:
        return found
    user_id = await _user_id(admin, user_email)
    return [a for a in found if a.user_id == user_id or a.role is not None]


async def account_remove(
    admin: VaultAdmin,
    service: str,
    *,
    name: str = DEFAULT_ACCOUNT,
    role: str | None = None,
    user_email: str | None = None,
) -> None:
    """Raises: NotFound: no such account or user."""
    accounts = admin.broker.accounts
    if role is not None:
        await accounts.remove(service, name, role=role)
    else:
        await accounts.remove(service, name, user_id=await _user_id(admin, user_email))


async def app_register(
    admin: VaultAdmin,
    service: str,
    client_id: str,
    client_secret: str,
    *,
    auth_method: AuthMethod = "client_secret_post",
) -> tuple[OAuthApp, str]:
    """Register (or replace) a type B service's OAuth app; returns it and the redirect URL to give the provider.

    Raises:
        NotFound: no such service.
        InvalidArgument: the service does not use OAuth, or the client id is invalid.
    """
    broker = admin.broker
    found = broker.connector.service(service)
    if found.auth.kind != "oauth2":
        raise InvalidArgument(f"{service} uses API keys, not OAuth; add keys with `mcpist account add`")
    app = await broker.apps.put(service, client_id, client_secret, auth_method)
    return app, broker.connector.callback_url(service)


async def app_list(admin: VaultAdmin) -> list[OAuthApp]:
    return await admin.broker.apps.list()


async def app_remove(admin: VaultAdmin, service: str) -> None:
    """Raises: NotFound: no app is registered for the service."""
    await admin.broker.apps.remove(service)


async def rotate_key(
    engine: AsyncEngine,
    data_dir: Path,
    settings: VaultSettings,
    progress: Callable[[int], None] | None = None,
    extra: Sequence[rotation.SealedRows] = (),
) -> rotation.RotationReport:
    """A new key-encryption key (master key file) and every record re-wrapped under it, online.

    Raises:
        ConfigError: the key sources are unusable.
        MissingKey, TamperedRecord: a record cannot be re-wrapped.
    """
    return await rotation.rotate_key(engine, KeySource(settings, data_dir), progress, extra)


async def rewrap(
    engine: AsyncEngine, data_dir: Path, settings: VaultSettings, extra: Sequence[rotation.SealedRows] = ()
) -> rotation.RotationReport:
    """Finish an interrupted rotation, or move records to an operator-managed new key; makes no key."""
    return await rotation.rewrap_all(engine, KeySource(settings, data_dir), extra=extra)


async def prune_keys(
    engine: AsyncEngine, data_dir: Path, settings: VaultSettings, extra: Sequence[rotation.SealedRows] = ()
) -> list[str]:
    """Forget retired keys that no record uses any more; returns their ids."""
    return await rotation.prune_keys(engine, KeySource(settings, data_dir), extra)


async def key_status(
    engine: AsyncEngine, data_dir: Path, settings: VaultSettings, extra: Sequence[rotation.SealedRows] = ()
) -> dict[str, Any]:
    """The active key id, the retired ids, and how many records each key wraps."""
    keys = KeySource(settings, data_dir)
    keyring = keys.keyring()
    usage = await rotation.key_usage(engine, extra)
    return {"active": keyring.active_id, "retired": sorted(keys.retired()), "usage": usage}


def format_accounts(accounts: Sequence[AccountInfo]) -> str:
    if not accounts:
        return (
            "No accounts. Add one with `mcpist account add SERVICE --token-stdin` or `mcpist account connect SERVICE`."
        )
    lines = [f"{'ACCOUNT':<32} {'OWNER':<32} {'KIND':<8} {'ACCESS':<6} {'STATUS':<10} {'EXPIRES (UTC)':<34} FIELDS"]
    for a in accounts:
        d = a.to_dict()
        fields = " ".join(f"{k}={v}" for k, v in sorted(a.fields.items()))
        access = "read" if a.read_only else "write"
        row = f"{a.label:<32} {d['owner']:<32} {a.kind:<8} {access:<6} {a.status:<10} {describe_expiry(a):<34} {fields}"
        lines.append(row.rstrip())
    return "\n".join(lines)


def describe_expiry(account: AccountInfo) -> str:
    """When the account stops working by itself: never, renewed automatically, or a time to reconnect by."""

    def at(when: datetime) -> str:
        return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M")

    if account.expires_at is None:
        return "-"
    if not account.refreshable:
        return f"{at(account.expires_at)}, then reconnect"
    if account.refresh_expires_at is not None:
        return f"renews; reconnect by {at(account.refresh_expires_at)}"
    return f"{at(account.expires_at)}, renews itself"


def format_apps(apps: Sequence[OAuthApp]) -> str:
    if not apps:
        return "No OAuth apps. Register one with `mcpist app register SERVICE --client-id ID --client-secret-stdin`."
    lines = [f"{'SERVICE':<24} {'CLIENT ID':<40} AUTH"]
    lines += [f"{a.service:<24} {a.client_id:<40} {a.auth_method}" for a in apps]
    return "\n".join(lines)


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Add the `account`, `app` and `vault` commands; `common` adds --data-dir and --config."""

    def owner_args(p: argparse.ArgumentParser, *, service: bool = True) -> None:
        common(p)
        if service:
            p.add_argument("service")
            p.add_argument("--name", default=DEFAULT_ACCOUNT, help="account name (default: default)")
            p.add_argument("--role", help="make a shared account of this role instead of a personal one")
        p.add_argument("--user", help="act for the user with this email (default: the owner)")

    account = sub.add_parser("account", help="connect and list accounts on external services")
    acts = account.add_subparsers(dest="account_command", required=True, metavar="ACTION")
    add = acts.add_parser("add", help="store a token or API key read from standard input")
    owner_args(add)
    add.add_argument("--token-stdin", action="store_true", required=True, help="read the secret from stdin")
    add.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an account field the service declares, e.g. --set site=https://acme.atlassian.net",
    )
    add.add_argument(
        "--read-only", action="store_true", help="run only read-only tools with this account (use a read-only key)"
    )
    connect = acts.add_parser("connect", help="print a URL that connects the account in a browser")
    owner_args(connect)
    connect.add_argument(
        "--read-only",
        action="store_true",
        help="ask the service only for read-only scopes; the server then runs only read-only tools with it",
    )
    listing = acts.add_parser("list", help="list accounts (never their secrets)")
    owner_args(listing, service=False)
    listing.add_argument("--all", action="store_true", help="every user's accounts")
    owner_args(acts.add_parser("remove", help="remove an account"))

    app = sub.add_parser("app", help="register OAuth apps (client id and secret) for services")
    app_acts = app.add_subparsers(dest="app_command", required=True, metavar="ACTION")
    register = app_acts.add_parser("register", help="register a service's OAuth app")
    common(register)
    register.add_argument("service")
    register.add_argument("--client-id", required=True)
    register.add_argument("--client-secret-stdin", action="store_true", help="read the client secret from stdin")
    register.add_argument("--basic-auth", action="store_true", help="send the client secret with HTTP Basic")
    common(app_acts.add_parser("list", help="list OAuth apps (never their secrets)"))
    remove = app_acts.add_parser("remove", help="remove a service's OAuth app")
    common(remove)
    remove.add_argument("service")

    vault = sub.add_parser("vault", help="manage the vault's key-encryption key")
    vault_acts = vault.add_subparsers(dest="vault_command", required=True, metavar="ACTION")
    common(vault_acts.add_parser("rotate-key", help="new key; re-wrap every record while the server serves"))
    common(vault_acts.add_parser("rewrap", help="re-wrap records not under the active key (finish a rotation)"))
    common(vault_acts.add_parser("prune-keys", help="forget retired keys that no record uses"))
    common(vault_acts.add_parser("status", help="key ids and how many records each wraps"))


async def run(args: argparse.Namespace, admin: VaultAdmin, stdin: TextIO, out: TextIO) -> None:
    """Carry out a parsed `account`, `app` or `vault` command against a started runtime.

    Raises:
        MCPistError: an expected failure (the CLI prints its message).
        ConfigError: the key sources are unusable.
    """

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    if args.command == "account":
        action = args.account_command
        user = args.user
        if action == "list":
            say(format_accounts(await account_list(admin, user_email=user, everyone=args.all)))
        elif action == "add":
            fields = parse_fields(args.set)
            module = admin.broker.connector.services.module(args.service)
            if module is not None:
                check_fields(module, fields)  # before asking for the secret
            info = await account_add(
                admin,
                args.service,
                read_secret(stdin),
                name=args.name,
                role=args.role,
                user_email=user,
                fields=fields,
                read_only=args.read_only,
            )
            say(f"Stored {info.label} for {info.to_dict()['owner']} (encrypted; it is never shown again).")
        elif action == "connect":
            url = await account_connect(
                admin, args.service, name=args.name, role=args.role, user_email=user, read_only=args.read_only
            )
            minutes = max(1, round(admin.settings.connect_ttl_s / 60))
            say(f"Open this URL in a browser within {minutes} minutes to connect {args.service}:{args.name}:")
            say(url)
        elif action == "remove":
            await account_remove(admin, args.service, name=args.name, role=args.role, user_email=user)
            say(f"Removed {args.service}:{args.name}.")
    elif args.command == "app":
        if args.app_command == "register":
            secret = read_secret(stdin) if args.client_secret_stdin else ""
            method: AuthMethod = "client_secret_basic" if args.basic_auth else "client_secret_post"
            app, redirect = await app_register(admin, args.service, args.client_id, secret, auth_method=method)
            say(f"Registered the OAuth app for {app.service}. Its redirect URL at the provider must be:")
            say(redirect)
        elif args.app_command == "list":
            say(format_apps(await app_list(admin)))
        elif args.app_command == "remove":
            await app_remove(admin, args.service)
            say(f"Removed the OAuth app of {args.service}.")
    elif args.command == "vault":
        await _vault(args.vault_command, admin, say)


async def _vault(action: str, admin: VaultAdmin, say: Callable[[str], None]) -> None:
    engine, data_dir, settings = admin.engine, admin.data_dir, admin.settings
    if action in ("rotate-key", "rewrap"):
        report = (
            await rotate_key(engine, data_dir, settings, extra=admin.sealed)
            if action == "rotate-key"
            else await rewrap(engine, data_dir, settings, admin.sealed)
        )
        if report.retired_id:
            say(f"New key {report.active_id}; key {report.retired_id} moved to the keyring file.")
        say(f"Re-wrapped {report.rewrapped} records under key {report.active_id}.")
        if report.remaining:
            left = ", ".join(f"{kid}: {n}" for kid, n in sorted(report.remaining.items()))
            say(f"Still under other keys (run `mcpist vault rewrap` again): {left}")
        else:
            say("Every record is under the active key; `mcpist vault prune-keys` forgets the retired ones.")
    elif action == "prune-keys":
        dropped = await prune_keys(engine, data_dir, settings, admin.sealed)
        say(f"Forgot {len(dropped)} retired keys: {', '.join(dropped)}" if dropped else "No unused retired keys.")
    elif action == "status":
        status = await key_status(engine, data_dir, settings, admin.sealed)
        say(f"active key: {status['active']}")
        say(f"retired keys: {', '.join(status['retired']) or '(none)'}")
        for kid, n in sorted(status["usage"].items()):
            say(f"  {kid}: {n} records")


__all__ = [
    "COMMANDS",
    "TokenBroker",
    "VaultAdmin",
    "check_fields",
    "parse_fields",
    "account_add",
    "account_connect",
    "account_list",
    "account_remove",
    "add_parsers",
    "app_list",
    "app_register",
    "app_remove",
    "format_accounts",
    "format_apps",
    "key_status",
    "prune_keys",
    "read_secret",
    "rewrap",
    "rotate_key",
    "run",
]
