"""The Tool Sieve's tables: roles, who holds them, token narrowing, refused calls.

Migrations: the `sieve` branch in `migrations/` beside this file.
"""

from __future__ import annotations

import sqlalchemy as sa

from mcpist.storage.tables import api_tokens, users
from mcpist.storage.tables import metadata as core_metadata
from mcpist.storage.types import UTCDateTime

metadata = sa.MetaData(naming_convention=core_metadata.naming_convention)

roles = sa.Table(
    "roles",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("description", sa.String(500), nullable=False, server_default=""),
    sa.Column("builtin", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

role_permissions = sa.Table(
    "role_permissions",
    metadata,
    sa.Column("role_id", sa.String(36), sa.ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("effect", sa.String(8), primary_key=True),
    sa.Column("pattern", sa.String(200), primary_key=True),
)

user_roles = sa.Table(
    "user_roles",
    metadata,
    sa.Column("user_id", sa.String(36), sa.ForeignKey(users.c.id, ondelete="CASCADE"), primary_key=True),
    sa.Column("role_id", sa.String(36), sa.ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True, index=True),
    sa.Column("granted_at", UTCDateTime, nullable=False),
)

# A token listed here is narrowed to its token_roles rows, even once they are gone (an empty set).
narrowed_tokens = sa.Table(
    "narrowed_tokens",
    metadata,
    sa.Column("token_id", sa.String(36), sa.ForeignKey(api_tokens.c.id, ondelete="CASCADE"), primary_key=True),
)

token_roles = sa.Table(
    "token_roles",
    metadata,
    sa.Column("token_id", sa.String(36), sa.ForeignKey(api_tokens.c.id, ondelete="CASCADE"), primary_key=True),
    sa.Column("role_id", sa.String(36), sa.ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True, index=True),
)

# No foreign keys: the record outlives the user and token it names.
security_events = sa.Table(
    "security_events",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("at", UTCDateTime, nullable=False, index=True),
    sa.Column("user_id", sa.String(36), nullable=True),
    sa.Column("token_id", sa.String(36), nullable=True),
    sa.Column("module", sa.String(64), nullable=False),
    sa.Column("tool", sa.String(128), nullable=False),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("via", sa.String(16), nullable=False),
)

# Modules an admin switched off (migration sieve_0002): their tools, resources and prompts are hidden from
# everyone, whatever the roles say. A module not listed is on.
disabled_modules = sa.Table(
    "disabled_modules",
    metadata,
    sa.Column("module", sa.String(64), primary_key=True),
    sa.Column("disabled_at", UTCDateTime, nullable=False),
)
