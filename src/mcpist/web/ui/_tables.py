"""The UI's own tables (migrations in `migrations/`, their own Alembic version table): per-user
settings, and the record of admin actions and access requests."""

from __future__ import annotations

import sqlalchemy as sa

from mcpist.storage.tables import metadata as core_metadata
from mcpist.storage.tables import users
from mcpist.storage.types import UTCDateTime

metadata = sa.MetaData(naming_convention=core_metadata.naming_convention)

profiles = sa.Table(
    "web_profiles",
    metadata,
    sa.Column("user_id", sa.String(36), sa.ForeignKey(users.c.id, ondelete="CASCADE"), primary_key=True),
    sa.Column("display_name", sa.String(100), nullable=False, server_default=""),
    sa.Column("language", sa.String(8), nullable=True),
    sa.Column("time_zone", sa.String(64), nullable=True),
    sa.Column("disabled_at", UTCDateTime, nullable=True),
    # the roles a user held when disabled, given back when enabled again (JSON list of names)
    sa.Column("held_roles", sa.Text, nullable=True),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

# No foreign keys: the record outlives the users it names.
audit = sa.Table(
    "web_audit",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("at", UTCDateTime, nullable=False, index=True),
    sa.Column("actor_id", sa.String(36), nullable=True),
    sa.Column("actor_email", sa.String(320), nullable=False),
    sa.Column("action", sa.String(48), nullable=False, index=True),
    sa.Column("target", sa.String(320), nullable=False, server_default=""),
    sa.Column("detail", sa.String(1000), nullable=False, server_default=""),
)
