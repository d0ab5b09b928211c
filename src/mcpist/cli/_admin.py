"""The administrative commands: tokens, roles, users, the audits (security events, tool calls), the
vault's accounts and keys, and modules (listing, switching off for everyone). Each opens the
database and the owner without starting modules (`admin_runtime`), does what the admin UI does through the
same core functions, and prints what a person at the terminal needs; errors are `MCPistError`s whose
message is ready to print (`mcpist.cli` prints them).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from mcpist.config import Settings
from mcpist.errors import InvalidArgument, NotFound
from mcpist.vault import cli as vault_cli

if TYPE_CHECKING:
    from mcpist.runtime import Runtime


@asynccontextmanager
async def admin_runtime(settings: Settings) -> AsyncIterator[Runtime]:
    """The database and owner, without starting modules: enough for administrative commands."""
    from mcpist.runtime import start_runtime

    async with start_runtime(settings, start_modules=False) as runtime:
        yield runtime


async def _with_store(settings: Settings, action: Callable[[Any, Any], Awaitable[None]]) -> None:
    from mcpist.auth.tokens import TokenStore

    async with admin_runtime(settings) as runtime:
        await action(TokenStore(runtime.engine), runtime)


async def token(args: argparse.Namespace, settings: Settings) -> None:
    async def create(store: Any, runtime: Any) -> None:
        from mcpist.sieve.cli import prepare_token

        # the sieve checks the user and roles; the token and its narrowing then commit together
        new = await prepare_token(runtime.engine, email=args.user, roles=args.role)
        info, token = await store.create(args.name, new.user_id, then=new.narrow)
        print(f"Created API token {info.name!r} for {info.email}. It is shown only now; store it safely:")
        print(token)

    async def listing(store: Any, runtime: Any) -> None:
        tokens = await store.list()
        if not tokens:
            print("No tokens. Create one with: mcpist token create --name NAME")
            return
        print(f"{'NAME':<24} {'USER':<24} {'CREATED':<20} {'LAST USED':<20} STATUS")
        for t in tokens:
            used = t.last_used_at.strftime("%Y-%m-%d %H:%M") if t.last_used_at else "never"
            status = "revoked" if t.revoked_at else "active"
            print(f"{t.name:<24} {t.email:<24} {t.created_at.strftime('%Y-%m-%d %H:%M'):<20} {used:<20} {status}")

    async def revoke(store: Any, runtime: Any) -> None:
        info = await store.revoke(args.name)
        print(f"Revoked API token {info.name!r}.")

    actions = {"create": create, "list": listing, "revoke": revoke}
    await _with_store(settings, actions[args.token_command])


async def role(args: argparse.Namespace, settings: Settings) -> None:
    from mcpist.sieve import cli as roles

    async with admin_runtime(settings) as runtime:
        engine = runtime.engine
        command = args.role_command
        if command in ("create", "update"):
            allow = roles.read_only_allows(args.allow, args.allow_read)
            from mcpist.modules.registry import Registry

            # patterns are checked against the enabled modules; disabled ones are named, never imported
            unloaded = set(Registry.installed_names()) - set(runtime.registry.names())
            if command == "create":
                role = await roles.create_role(
                    engine,
                    args.name,
                    allow,
                    args.deny,
                    args.description or "",
                    registry=runtime.registry,
                    unloaded=unloaded,
                )
                print(f"Created role {role.name!r}.")
            else:
                from mcpist.sieve import get_role

                described = args.description
                if described is None:  # `update` replaces the patterns; the description stays unless given
                    current = await get_role(engine, args.name)
                    described = current.description if current is not None else ""
                await roles.update_role(
                    engine, args.name, allow, args.deny, described, registry=runtime.registry, unloaded=unloaded
                )
                print(f"Updated role {args.name!r}; running servers apply it within access_cache_s.")
        elif command == "list":
            print(roles.format_roles(await roles.list_roles(engine)))
        elif command == "grant":
            added = await roles.grant_role(engine, args.email, args.role)
            print(f"{args.email} {'now holds' if added else 'already held'} role {args.role!r}.")
        elif command == "revoke":
            await roles.revoke_role(engine, args.email, args.role)
            print(f"{args.email} no longer holds role {args.role!r}.")
        elif command == "delete":
            await roles.delete_role(engine, args.name)
            print(f"Deleted role {args.name!r}.")


def _read_password() -> str:
    return sys.stdin.readline().rstrip("\r\n")


async def user(args: argparse.Namespace, settings: Settings) -> None:
    from mcpist.auth.users import add_user, list_users, set_password
    from mcpist.sieve import cli as roles

    async with admin_runtime(settings) as runtime:
        engine = runtime.engine
        if args.user_command == "add":
            password = _read_password() if args.password_stdin else None
            added = await add_user(engine, args.email, "admin" if args.admin else None, password)
            for role in args.role:
                await roles.grant_role(engine, added.email, role)
            kind = "admin" if added.system_role == "admin" else "user"
            print(f"Added {kind} {added.email}" + (f" with roles {', '.join(args.role)}." if args.role else "."))
        elif args.user_command == "list":
            print(f"{'EMAIL':<32} {'SYSTEM ROLE':<12} {'PASSWORD':<9} {'STATUS':<9} ROLES")
            for record in await list_users(engine):
                held = ", ".join(await roles.roles_of(engine, record.email)) or "-"
                password = "yes" if record.has_password else "no"
                status = "disabled" if record.disabled_at else "active"
                print(f"{record.email:<32} {record.system_role:<12} {password:<9} {status:<9} {held}")
        elif args.user_command == "passwd":
            changed = await set_password(engine, args.email, _read_password())
            print(f"Password set for {changed.email}.")
        else:
            await _user_switch(args, engine)


async def _user_switch(args: argparse.Namespace, engine: Any) -> None:
    """`user disable|enable|system-role EMAIL`, as the admin UI's user panel does them."""
    from mcpist.auth.users import find_user, set_system_role
    from mcpist.web.ui import upgrade_ui
    from mcpist.web.ui._store import disable_user, enable_user

    await upgrade_ui(engine)  # the roles a disabled user held are kept in the UI's table, as when the UI does it
    user = await find_user(engine, args.email)
    if user is None:
        raise NotFound(f"no user with email {args.email!r}", {"field": "user"})
    if args.user_command == "disable":
        held = await disable_user(engine, user.id, user.email)
        print(f"Disabled {user.email}" + (f"; roles taken (kept to give back): {', '.join(held)}." if held else "."))
    elif args.user_command == "enable":
        given = await enable_user(engine, user.id, user.email)
        print(f"Enabled {user.email}" + (f" with roles {', '.join(given)}." if given else "."))
    else:
        await set_system_role(engine, user.id, args.system_role)
        print(f"{user.email} is now {'an admin' if args.system_role == 'admin' else 'a plain user'}.")


async def events(args: argparse.Namespace, settings: Settings) -> None:
    from mcpist.sieve import cli as roles

    async with admin_runtime(settings) as runtime:
        print(roles.format_events(await roles.list_security_events(runtime.engine, args.limit)))


async def calls(args: argparse.Namespace, settings: Settings) -> None:
    from mcpist.web.ui._calls import OUTCOMES, list_tool_calls

    if args.outcome is not None and args.outcome not in OUTCOMES:
        raise InvalidArgument(f"unknown outcome {args.outcome!r}; one of: {', '.join(OUTCOMES)}", {"field": "outcome"})
    from mcpist.auth.users import normalize_email

    email = normalize_email(args.user) if args.user else None
    async with admin_runtime(settings) as runtime:
        rows = await list_tool_calls(
            runtime.engine, offset=0, limit=args.limit, email=email, module=args.module, outcome=args.outcome
        )
    if not rows:
        print("No tool calls recorded" + (" that match." if args.user or args.module or args.outcome else "."))
        return
    print(f"{'AT (UTC)':<20} {'USER':<28} {'TOOL':<32} {'ACCOUNT':<14} {'VIA':<8} {'OUTCOME':<18} {'MS':>6}")
    for r in rows:
        who = (r.email or r.user_id or "-") + (f" [{r.token_name}]" if r.token_name else "")
        print(
            f"{r.at.strftime('%Y-%m-%d %H:%M:%S'):<20} {who:<28} {r.module + '.' + r.tool:<32} "
            f"{r.account or '-':<14} {r.via:<8} {r.outcome:<18} {r.duration_ms:>6}"
        )


def _printable(text: str) -> str:
    """Free text others wrote (an access request's reason), with no control character to reach the terminal."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


async def actions(args: argparse.Namespace, settings: Settings) -> None:
    """`actions`: the UI's record of admin actions and access requests (the "admin" view of `/logs`)."""
    from mcpist.auth.users import normalize_email
    from mcpist.web.ui import upgrade_ui
    from mcpist.web.ui._store import list_audit

    actor = normalize_email(args.user) if args.user else None
    async with admin_runtime(settings) as runtime:
        await upgrade_ui(runtime.engine)  # the record lives in the UI's table
        rows = await list_audit(runtime.engine, limit=args.limit, action=args.action or None, actor=actor)
    if not rows:
        print("No admin actions recorded" + (" that match." if args.user or args.action else "."))
        return
    print(f"{'AT (UTC)':<20} {'BY':<28} {'ACTION':<22} {'TARGET':<28} DETAIL")
    for r in rows:
        print(
            f"{r.at.strftime('%Y-%m-%d %H:%M:%S'):<20} {_printable(r.actor_email):<28} {r.action:<22} "
            f"{_printable(r.target) or '-':<28} {_printable(r.detail)}".rstrip()
        )


async def mail(args: argparse.Namespace, settings: Settings) -> None:
    """`mail show|set|test`: what `/settings` does (the password write-only, from stdin)."""
    from mcpist.web.ui import upgrade_ui
    from mcpist.web.ui._notify import MailStore, parse_settings, send_mail

    async with admin_runtime(settings) as runtime:
        await upgrade_ui(runtime.engine)  # the settings live in the UI's table
        store = MailStore.of(runtime)
        current = await store.get()
        if args.mail_command == "show":
            _print_mail(current)
        elif args.mail_command == "test":
            await send_mail(store, "MCPist: test message", "This is a test message from MCPist (mcpist mail test).\n")
            print(f"Sent a test message to {', '.join(current.recipients)}.")
        else:
            if args.password_stdin and args.clear_password:
                raise InvalidArgument("give --password-stdin or --clear-password, not both")
            password = _read_password() if args.password_stdin else None
            if args.password_stdin and not password:
                raise InvalidArgument("no password on standard input")
            alerts = set(args.alerts) if args.alerts is not None else None
            given = {
                "host": args.smtp_host,
                "port": args.smtp_port,
                "security": args.security,
                "username": args.username,
                "sender": args.sender,
                "recipients": " ".join(args.recipients) if args.recipients is not None else None,
                "alert_reauth": ("on" if "reauth" in alerts else "") if alerts is not None else None,
                "alert_denied": ("on" if "denied" in alerts else "") if alerts is not None else None,
                "denied_threshold": args.denied_threshold,
                "denied_window_min": args.denied_window_min,
                "throttle_min": args.throttle_min,
            }
            form = {**_mail_form(current), **{k: v for k, v in given.items() if v is not None}}
            kept = password is not None or (current.has_password and not args.clear_password)
            parsed = parse_settings(form, password_kept=kept)
            await store.save(parsed, password=password, clear_password=args.clear_password)
            print("Mail settings saved.")
            _print_mail(await store.get())


def _mail_form(current: Any) -> dict[str, str]:
    """The stored settings as the form `parse_settings` reads."""
    return {
        "host": current.host,
        "port": str(current.port),
        "security": current.security,
        "username": current.username,
        "sender": current.sender,
        "recipients": " ".join(current.recipients),
        "alert_reauth": "on" if current.alert_reauth else "",
        "alert_denied": "on" if current.alert_denied else "",
        "denied_threshold": str(current.denied_threshold),
        "denied_window_min": str(current.denied_window_min),
        "throttle_min": str(current.throttle_min),
    }


def _print_mail(current: Any) -> None:
    alerts = [kind for kind, on in (("reauth", current.alert_reauth), ("denied", current.alert_denied)) if on]
    print(f"server:     {current.host or '(none: nothing is sent)'}:{current.port} ({current.security})")
    print(f"user:       {current.username or '-'}; password {'set' if current.has_password else 'not set'}")
    print(f"from / to:  {current.sender or '-'} / {', '.join(current.recipients) or '-'}")
    print(
        f"alerts:     {', '.join(alerts) or 'none'} (a burst: {current.denied_threshold} refused calls in "
        f"{current.denied_window_min} min; at most one per kind every {current.throttle_min} min)"
    )


async def vault(args: argparse.Namespace, settings: Settings) -> None:
    from mcpist.vault.broker import TokenBroker
    from mcpist.vault.rotation import SealedRows
    from mcpist.web.ui import upgrade_ui
    from mcpist.web.ui._notify import SEALED_ROWS

    async with admin_runtime(settings) as runtime:
        assert isinstance(runtime.accounts, TokenBroker)
        sealed: tuple[SealedRows, ...] = ()
        if args.command == "vault":  # the key commands: the UI's SMTP password is sealed with the vault's key too
            await upgrade_ui(runtime.engine)
            sealed = (SEALED_ROWS,)
        admin = vault_cli.VaultAdmin(runtime.accounts, runtime.owner.id, settings.data_dir, sealed)
        await vault_cli.run(args, admin, sys.stdin, sys.stdout)


async def switch_module(args: argparse.Namespace, settings: Settings) -> None:
    from mcpist.sieve import set_module_enabled

    on = args.modules_command == "on"
    async with admin_runtime(settings) as runtime:
        changed = await set_module_enabled(runtime.engine, args.module, on, registry=runtime.registry)
    state = "on" if on else "off"
    if changed:
        print(f"Module {args.module!r} is {state} for everyone; running servers apply it within access_cache_s.")
    else:
        print(f"Module {args.module!r} was already {state}.")


def modules(args: argparse.Namespace, settings: Settings) -> None:
    from mcpist.modules.registry import Registry

    registry = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    rows: list[dict[str, Any]] = []
    for module in registry:
        for tool in sorted(registry.tools(module.name), key=lambda t: t.spec.name):
            size = len(json.dumps(tool.definition(), ensure_ascii=False, separators=(",", ":")).encode())
            rows.append({"module": module.name, "tool": tool.spec.name, "bytes": size, "tokens": approx_tokens(size)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    if not rows:
        print("No modules installed.")
        return
    for module in registry:
        mine = [r for r in rows if r["module"] == module.name]
        total = sum(r["bytes"] for r in mine)
        print(f"{module.name} — {module.summary} ({len(mine)} tools, {total} bytes, ~{approx_tokens(total)} tokens)")
        for r in mine:
            print(f"  {r['tool']:<28} {r['bytes']:>6} bytes  ~{r['tokens']:>5} tokens")


def approx_tokens(n_bytes: int) -> int:
    """Rough LLM token count of JSON text: about four bytes a token."""
    return (n_bytes + 3) // 4
