"""The core's tables. Modules keep their own tables and migrations."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("email", sa.String(320), nullable=False, unique=True),
    sa.Column("system_role", sa.String(16), nullable=False, server_default="user"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

api_tokens = sa.Table(
    "api_tokens",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("prefix", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)

# Tool Sieve (migration sieve_0001): roles, who holds them, token narrowing, refused calls.

roles = sa.Table(
    "roles",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("description", sa.String(500), nullable=False, server_default=""),
    sa.Column("builtin", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
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
    sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("role_id", sa.String(36), sa.ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True, index=True),
    sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
)

# A token listed here is narrowed to its token_roles rows, even once they are gone (an empty set).
narrowed_tokens = sa.Table(
    "narrowed_tokens",
    metadata,
    sa.Column("token_id", sa.String(36), sa.ForeignKey("api_tokens.id", ondelete="CASCADE"), primary_key=True),
)

token_roles = sa.Table(
    "token_roles",
    metadata,
    sa.Column("token_id", sa.String(36), sa.ForeignKey("api_tokens.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("role_id", sa.String(36), sa.ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True, index=True),
)

# No foreign keys: the record outlives the user and token it names.
security_events = sa.Table(
    "security_events",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
    sa.Column("user_id", sa.String(36), nullable=True),
    sa.Column("token_id", sa.String(36), nullable=True),
    sa.Column("module", sa.String(64), nullable=False),
    sa.Column("tool", sa.String(128), nullable=False),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("via", sa.String(16), nullable=False),
)
