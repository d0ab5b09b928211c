"""The vault: credentials for external services, encrypted at rest (AES-256-GCM envelope
encryption), and the token broker that resolves and refreshes them for tool calls.

Layers, bottom up: crypto (pure) -> keys (KEK sources) -> store / flows (sealed records)
-> oauth (provider client) -> connect (connecting accounts) -> broker (AccountResolver)
-> routes / cli (edges).
"""

from pathlib import Path

from .broker import RolesOf, TokenBroker, broker_for, no_roles
from .connect import NoOAuthApp
from .crypto import Keyring, MissingKey, TamperedRecord
from .keys import KeySource
from .routes import SessionUser, connect_routes
from .store import AccountInfo, OAuthApp

MIGRATIONS = Path(__file__).parent / "migrations"
"""The vault branch of Alembic revisions, for `mcpist.storage.migrate.upgrade`."""

__all__ = [
    "AccountInfo",
    "KeySource",
    "Keyring",
    "MIGRATIONS",
    "MissingKey",
    "NoOAuthApp",
    "OAuthApp",
    "RolesOf",
    "SessionUser",
    "TamperedRecord",
    "TokenBroker",
    "broker_for",
    "connect_routes",
    "no_roles",
]
