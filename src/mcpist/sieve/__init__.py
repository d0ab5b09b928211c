"""Tool Sieve: roles decide which tools each user, and each API token, can see and run.

A role allows and denies tools by pattern (see `_patterns`); a user holds roles; a token
carries all of its user's roles or a subset of them. Per request the rules become a `Grants`
set, so every visibility check is one set lookup. A tool outside it is absent from every
listing, and calling it is answered exactly as a nonexistent tool and recorded as a
security event.
"""

from pathlib import Path

from ._events import (
    HIDDEN_TOOL_CALL,
    UNKNOWN_TOOL_CALL,
    SecurityEvent,
    Via,
    count_security_events,
    list_security_events,
    record_security_event,
)
from ._grants import Grants, Principal, Rule, Sieve
from ._modules import list_disabled_modules, set_module_enabled
from ._patterns import PRESETS, Pattern, check_installed, parse_pattern
from ._roles import (
    ADMIN_ROLE,
    ADMIN_ROLE_ID,
    Role,
    check_patterns,
    create_role,
    delete_role,
    ensure_owner_access,
    get_role,
    grant_role,
    list_roles,
    load_access,
    revoke_role,
    roles_of,
    update_role,
)
from ._tokens import NewToken, prepare_token, token_roles_by_token

MIGRATIONS = Path(__file__).parent / "migrations"
"""The sieve branch of Alembic revisions, for `mcpist.storage.migrate.upgrade`."""

__all__ = [
    "ADMIN_ROLE",
    "ADMIN_ROLE_ID",
    "HIDDEN_TOOL_CALL",
    "MIGRATIONS",
    "PRESETS",
    "UNKNOWN_TOOL_CALL",
    "Grants",
    "NewToken",
    "Pattern",
    "Principal",
    "Role",
    "Rule",
    "SecurityEvent",
    "Sieve",
    "Via",
    "check_installed",
    "check_patterns",
    "count_security_events",
    "create_role",
    "delete_role",
    "ensure_owner_access",
    "get_role",
    "grant_role",
    "list_disabled_modules",
    "list_roles",
    "list_security_events",
    "load_access",
    "parse_pattern",
    "prepare_token",
    "record_security_event",
    "revoke_role",
    "roles_of",
    "set_module_enabled",
    "token_roles_by_token",
    "update_role",
]
