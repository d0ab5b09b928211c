"""What `mcpist role ...`, `mcpist token create --role` and `mcpist events` call, and their output.

    mcpist role create NAME [--allow P]... [--deny P]... [--allow-read MODULE]... [--description TEXT]
        await create_role(engine, name, read_only_allows(allow, allow_read), deny, description,
                          registry=installed_registry())
    mcpist role update NAME ...          await update_role(engine, name, ...) (same options; holders keep it)
    mcpist role list                     print(format_roles(await list_roles(engine)))
    mcpist role grant EMAIL ROLE         await grant_role(engine, email, role)
    mcpist role revoke EMAIL ROLE        await revoke_role(engine, email, role)
    mcpist role delete NAME              await delete_role(engine, name)
    mcpist token create --name N [--user EMAIL] [--role R]...
        new = await prepare_token(engine, email=email, roles=roles)
        info, token = await TokenStore(engine).create(name, new.user_id, then=new.narrow)
    mcpist events [--limit N]            print(format_events(await list_security_events(engine, limit)))

Every function raises `MCPistError`s whose message is ready to print.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._events import SecurityEvent, list_security_events
from ._roles import Role, create_role, delete_role, grant_role, list_roles, revoke_role, roles_of, update_role
from ._tokens import NewToken, prepare_token, token_roles_by_token

__all__ = [
    "NewToken",
    "create_role",
    "delete_role",
    "format_events",
    "format_roles",
    "grant_role",
    "list_roles",
    "list_security_events",
    "prepare_token",
    "read_only_allows",
    "revoke_role",
    "roles_of",
    "token_roles_by_token",
    "update_role",
]


def read_only_allows(allow: Sequence[str], allow_read: Sequence[str]) -> list[str]:
    """`--allow-read memory` is `--allow memory.@read`."""
    return [*allow, *(f"{module}.@read" for module in allow_read)]


def format_roles(roles: Sequence[Role]) -> str:
    if not roles:
        return "No roles."
    lines: list[str] = []
    for role in roles:
        lines.append(
            f"{role.name}{' (built in)' if role.builtin else ''}"
            + (f": {role.description}" if role.description else "")
        )
        lines.append(f"  allow: {' '.join(role.allow) or '-'}")
        if role.deny:
            lines.append(f"  deny:  {' '.join(role.deny)}")
        lines.append(f"  users: {', '.join(role.users) or '-'}")
    return "\n".join(lines)


def format_events(events: Sequence[SecurityEvent]) -> str:
    if not events:
        return "No security events."
    lines = [f"{'TIME (UTC)':<20} {'KIND':<18} {'VIA':<6} {'USER':<24} {'TOKEN':<16} TOOL"]
    for e in events:
        user = e.email or e.user_id or "-"
        token = e.token_name or e.token_id or "-"
        at = e.at.strftime("%Y-%m-%d %H:%M:%S")
        lines.append(f"{at:<20} {e.kind:<18} {e.via:<6} {user:<24} {token:<16} {e.module}.{e.tool}")
    return "\n".join(lines)
