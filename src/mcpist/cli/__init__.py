"""Command line: arguments -> Settings -> runtime -> app.

The parser, `serve`/`stdio`, module commands and the exit codes live here; the administrative
commands (tokens, roles, users, audits, vault, modules) in `_admin`, which each open the database
without starting modules.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpist import __version__
from mcpist.config import Settings, load_settings
from mcpist.errors import ConfigError, MCPistError, NotFound
from mcpist.vault import cli as vault_cli

from . import _admin
from ._admin import approx_tokens

if TYPE_CHECKING:
    from mcpist.modules.api import CommandSpec, Module

__all__ = ["CORE_COMMANDS", "approx_tokens", "build_parser", "main"]

EXIT_ERROR = 1
EXIT_CONFIG = 2
CORE_COMMANDS = (
    "serve",
    "stdio",
    "token",
    "role",
    "user",
    "events",
    "calls",
    "actions",
    "mail",
    *vault_cli.COMMANDS,
    "modules",
)


def _common(parser: argparse.ArgumentParser, *, nested: bool = False) -> None:
    """The options every command takes. `nested`: an action under a command that takes them too
    (`modules --data-dir D off X` and `modules off X --data-dir D` both work: an absent option must
    not overwrite the command's)."""
    default = argparse.SUPPRESS if nested else None
    parser.add_argument(
        "--data-dir", type=Path, default=default, help="data directory (default: ~/.local/share/mcpist)"
    )
    parser.add_argument(
        "--config", type=Path, default=default, help="TOML settings file (default: <data-dir>/mcpist.toml)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcpist",
        description="A self-hosted MCP server for Personal Context Management.",
        epilog="Modules add commands of their own: mcpist MODULE COMMAND ... (e.g. mcpist memory reembed); "
        "`mcpist MODULE --help` lists them.",
    )
    parser.add_argument("--version", action="version", version=f"mcpist {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="serve MCP over Streamable HTTP at /mcp")
    _common(serve)
    serve.add_argument("--host", help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8765)")
    serve.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="processes sharing the port (default: cluster.workers, else one per core when bound beyond "
        "loopback with PostgreSQL, else 1)",
    )

    stdio = sub.add_parser("stdio", help="serve MCP over stdin/stdout, acting as the owner")
    _common(stdio)

    token = sub.add_parser("token", help="manage API tokens")
    token_sub = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    create = token_sub.add_parser("create", help="create a token; prints it once, alone on the last line")
    _common(create)
    create.add_argument("--name", required=True)
    create.add_argument("--user", metavar="EMAIL", help="the token's user (default: the owner)")
    create.add_argument(
        "--role", action="append", default=[], metavar="ROLE", help="narrow the token to this role of the user"
    )
    listing = token_sub.add_parser("list", help="list tokens (never their values)")
    _common(listing)
    revoke = token_sub.add_parser("revoke", help="revoke a token by name")
    _common(revoke)
    revoke.add_argument("name")

    role = sub.add_parser("role", help="manage roles (Tool Sieve)")
    role_sub = role.add_subparsers(dest="role_command", required=True, metavar="ACTION")
    for action, text in (
        ("create", "create a role from allow/deny patterns"),
        ("update", "replace a role's patterns and description (its holders keep it)"),
    ):
        role_patterns = role_sub.add_parser(action, help=text)
        _common(role_patterns)
        role_patterns.add_argument("name")
        role_patterns.add_argument(
            "--allow", action="append", default=[], metavar="PATTERN", help="e.g. memory.search, github.*"
        )
        role_patterns.add_argument(
            "--deny", action="append", default=[], metavar="PATTERN", help="e.g. github.delete_repo"
        )
        role_patterns.add_argument(
            "--allow-read", action="append", default=[], metavar="MODULE", help="every read-only tool of MODULE"
        )
        role_patterns.add_argument("--description", help="what the role is for (update: kept when not given)")
    role_list = role_sub.add_parser("list", help="list roles, their patterns and users")
    _common(role_list)
    for action, text in (("grant", "give a user a role"), ("revoke", "take a role from a user")):
        parser_ = role_sub.add_parser(action, help=text)
        _common(parser_)
        parser_.add_argument("email")
        parser_.add_argument("role")
    role_delete = role_sub.add_parser("delete", help="delete a role")
    _common(role_delete)
    role_delete.add_argument("name")

    user = sub.add_parser("user", help="manage users (the first one added becomes the admin)")
    user_sub = user.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    user_add = user_sub.add_parser("add", help="add a user who can sign in")
    _common(user_add)
    user_add.add_argument("email")
    user_add.add_argument("--role", action="append", default=[], metavar="ROLE", help="grant this role (repeatable)")
    user_add.add_argument("--admin", action="store_true", help="system role admin: may manage users and roles")
    user_add.add_argument("--password-stdin", action="store_true", help="read a password from the first stdin line")
    user_list = user_sub.add_parser("list", help="list users, their system role and roles")
    _common(user_list)
    user_passwd = user_sub.add_parser("passwd", help="set a user's password from the first stdin line")
    _common(user_passwd)
    user_passwd.add_argument("email")
    for action, text in (
        ("disable", "refuse a user from the next request on: roles taken (kept to give back), API tokens revoked"),
        ("enable", "let a disabled user in again, with the roles they held"),
    ):
        user_switch = user_sub.add_parser(action, help=text)
        _common(user_switch)
        user_switch.add_argument("email")
    user_system = user_sub.add_parser("system-role", help="make a user an admin (manages users and roles) or not")
    _common(user_system)
    user_system.add_argument("email")
    user_system.add_argument("system_role", choices=("admin", "user"))

    events = sub.add_parser("events", help="security events: calls to tools the caller may not use")
    _common(events)
    events.add_argument("--limit", type=int, default=100)

    calls = sub.add_parser("calls", help="the audit of tool calls, newest first (never arguments or results)")
    _common(calls)
    calls.add_argument("--user", metavar="EMAIL", help="only this user's calls")
    calls.add_argument("--module", help="only this module's tools")
    calls.add_argument("--outcome", metavar="OUTCOME", help="ok, errors (anything else) or an error code")
    calls.add_argument("--limit", type=_limit, default=50, help="at most this many rows (1-1000, default 50)")

    actions = sub.add_parser(
        "actions", help="the audit of admin actions and access requests made in the web UI, newest first"
    )
    _common(actions)
    actions.add_argument("--user", metavar="EMAIL", help="only what this user did")
    actions.add_argument("--action", metavar="ACTION", help="only this action (e.g. role_update, token_create)")
    actions.add_argument("--limit", type=_limit, default=50, help="at most this many rows (1-1000, default 50)")

    mail = sub.add_parser("mail", help="e-mail alerts: the SMTP server and what alerts (the UI's /settings)")
    mail_sub = mail.add_subparsers(dest="mail_command", required=True, metavar="ACTION")
    _common(mail_sub.add_parser("show", help="the settings (never the password)"))
    _common(mail_sub.add_parser("test", help="send a test message to the recipients"))
    mail_set = mail_sub.add_parser("set", help="change the settings; what is not given stays")
    _common(mail_set)
    # not `host`/`port`: those name the server's own bind address (`_settings`)
    mail_set.add_argument("--host", dest="smtp_host", metavar="HOST", help="the SMTP server ('' to stop sending)")
    mail_set.add_argument("--port", dest="smtp_port", metavar="PORT", help="1-65535 (587 by default)")
    mail_set.add_argument("--security", choices=("starttls", "tls", "none"))
    mail_set.add_argument("--user", dest="username", metavar="NAME", help="the SMTP user name")
    mail_set.add_argument(
        "--password-stdin", action="store_true", help="read the SMTP password from the first stdin line"
    )
    mail_set.add_argument("--clear-password", action="store_true", help="forget the stored SMTP password")
    mail_set.add_argument("--from", dest="sender", metavar="EMAIL", help="the sender address")
    mail_set.add_argument(
        "--to", dest="recipients", action="append", metavar="EMAIL", help="a recipient (repeatable; replaces the list)"
    )
    mail_set.add_argument(
        "--alert",
        dest="alerts",
        action="append",
        choices=("reauth", "denied", "none"),
        help="what alerts (repeatable; replaces the choice): accounts to reconnect, bursts of refused calls, none",
    )
    mail_set.add_argument("--denied-threshold", metavar="N", help="refused calls that make a burst (1-10000)")
    mail_set.add_argument("--denied-window-min", metavar="MIN", help="within this many minutes (1-1440)")
    mail_set.add_argument("--throttle-min", metavar="MIN", help="at most one alert of a kind per this many minutes")

    vault_cli.add_parsers(sub, _common)

    modules = sub.add_parser(
        "modules", help="list modules and tools with the size of each schema; switch a module off or on for everyone"
    )
    _common(modules)
    modules.add_argument("--json", action="store_true", help="machine-readable output")
    modules_sub = modules.add_subparsers(dest="modules_command", metavar="ACTION")
    for action, text in (
        ("off", "switch a module off for everyone: its tools, resources and prompts vanish on every path"),
        ("on", "switch a module that was switched off on again"),
    ):
        switch = modules_sub.add_parser(action, help=text)
        _common(switch, nested=True)
        switch.add_argument("module")
    return parser


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"{value} is out of range 1-1000")
    return value


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(
        args.config,
        data_dir=args.data_dir,
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
    )


def _setup_logging(settings: Settings) -> None:
    from mcpist.observe import setup_logging

    # text or JSON lines (observe.log_format), each record with its HTTP request's id
    setup_logging(settings.log_level, settings.observe.log_format, sys.stderr)
    if settings.log_level != "DEBUG":
        # one line per migration step and plugin on every command is noise, not news
        logging.getLogger("alembic").setLevel(logging.WARNING)
        # httpx says INFO "HTTP Request: <method> <url>" for every upstream call and every request
        # passed to another worker: a line per call, with the URL's query, which is not the log's
        # business (upstream status and latency are in the metrics, failures in the module's errors)
        logging.getLogger("httpx").setLevel(logging.WARNING)


def _command_name() -> str:
    """How the person at the terminal runs mcpist, for hints: the path it was started by (e.g.
    `.venv/bin/mcpist`), or plain `mcpist` when that is what the shell finds."""
    import shlex
    import shutil

    started = sys.argv[0] if sys.argv else ""
    if Path(started).name != "mcpist":
        return "mcpist"
    found = shutil.which("mcpist")
    if found is not None and Path(found).resolve() == Path(started).resolve():
        return "mcpist"
    return shlex.quote(started)


def _serve_worker(values: dict[str, Any], command: str, index: int) -> None:
    """A worker process of `serve --workers N` (started by spawning: logging is set up anew)."""
    from mcpist import launch

    settings = launch.worker_settings(values)
    _setup_logging(settings)
    launch.serve_worker(settings, command, index)


async def _stdio(settings: Settings) -> None:
    from mcpist.modules.api import Caller
    from mcpist.protocol.server import build_server
    from mcpist.protocol.stdio import stdio_server
    from mcpist.runtime import start_runtime

    async with start_runtime(settings) as runtime:
        owner = Caller(user_id=runtime.owner.id, email=runtime.owner.email)
        server = build_server(runtime, lambda _ctx: owner)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def _module_command_name(argv: Sequence[str]) -> str | None:
    """The module named first on the command line, if the first word is not one of the core's commands."""
    words = [a for a in argv if not a.startswith("-")]
    if not words or words[0] in CORE_COMMANDS:
        return None
    return words[0]


def _module_parser(module: Module) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"mcpist {module.name}", description=module.summary)
    sub = parser.add_subparsers(dest="module_command", required=True, metavar="COMMAND")
    for spec in module.commands.values():
        command = sub.add_parser(spec.name, help=spec.help, description=spec.help)
        _common(command)
        if spec.arguments is not None:
            spec.arguments(command)
    return parser


async def _run_module_command(
    module: Module, spec: CommandSpec, args: argparse.Namespace, settings: Settings
) -> int | None:
    import sqlalchemy as sa

    from mcpist.modules.api import CommandContext
    from mcpist.storage.tables import users

    async with _admin.admin_runtime(settings) as runtime:
        engine = runtime.engine

        async def user_id(email: str) -> str:
            async with engine.connect() as conn:
                found = (await conn.execute(sa.select(users.c.id).where(users.c.email == email))).scalar()
            if found is None:
                raise NotFound(f"no user with email {email!r}", {"field": "user"})
            return str(found)

        ctx: CommandContext[Any] = CommandContext(
            engine=engine,
            settings=runtime.module_settings[module.name],
            data_dir=settings.data_dir,
            logger=logging.getLogger(f"mcpist.modules.{module.name}"),
            owner_id=runtime.owner.id,
            user_id=user_id,
            stdin=sys.stdin,
            stdout=sys.stdout,
            stderr=sys.stderr,
        )
        return await spec.fn(ctx, args)


def _module_command(name: str, argv: Sequence[str]) -> int:
    """`mcpist MODULE COMMAND ...`: only the enabled modules are imported, and only to find the command."""
    from mcpist.modules.registry import Registry

    pre = argparse.ArgumentParser(add_help=False)
    _common(pre)
    known, _ = pre.parse_known_args(argv)
    settings = load_settings(known.config, data_dir=known.data_dir)
    _setup_logging(settings)
    registry = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    module = registry.module(name)
    if module is None or not module.commands:
        with_commands = sorted(m.name for m in registry if m.commands)
        build_parser().error(
            f"unknown command {name!r}; commands: {', '.join(CORE_COMMANDS)}"
            + (f"; modules with commands: {', '.join(with_commands)}" if with_commands else "")
        )
    assert module is not None
    words = list(argv)
    words.remove(name)
    args = _module_parser(module).parse_args(words)
    settings = load_settings(args.config, data_dir=args.data_dir)
    code = asyncio.run(_run_module_command(module, module.commands[args.module_command], args, settings))
    return code or 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # the database and key files hold secrets: nobody else may read what this process creates
    os.umask(0o077)
    module_name = _module_command_name(argv)
    if module_name is not None:
        return _guarded(lambda: _module_command(module_name, argv))
    args = build_parser().parse_args(argv)
    return _guarded(lambda: _core_command(args))


def _core_command(args: argparse.Namespace) -> int:
    settings = _settings(args)
    _setup_logging(settings)
    if args.command == "serve":
        from mcpist import launch

        launch.serve(settings, _command_name(), args.workers, _serve_worker)
    elif args.command == "stdio":
        asyncio.run(_stdio(settings))
    elif args.command == "token":
        asyncio.run(_admin.token(args, settings))
    elif args.command == "role":
        asyncio.run(_admin.role(args, settings))
    elif args.command == "user":
        asyncio.run(_admin.user(args, settings))
    elif args.command == "events":
        asyncio.run(_admin.events(args, settings))
    elif args.command == "calls":
        asyncio.run(_admin.calls(args, settings))
    elif args.command == "actions":
        asyncio.run(_admin.actions(args, settings))
    elif args.command == "mail":
        asyncio.run(_admin.mail(args, settings))
    elif args.command in vault_cli.COMMANDS:
        asyncio.run(_admin.vault(args, settings))
    elif args.command == "modules" and args.modules_command is not None:
        asyncio.run(_admin.switch_module(args, settings))
    elif args.command == "modules":
        _admin.modules(args, settings)
    return 0


def _guarded(run: Callable[[], int]) -> int:
    try:
        return run()
    except ConfigError as exc:
        print(f"mcpist: configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except MCPistError as exc:
        print(f"mcpist: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        print(f"mcpist: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
