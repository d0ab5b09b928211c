"""The core's tables, users and API tokens (migrations core_0001, core_0002); every other package keeps its own."""

from __future__ import annotations

import sqlalchemy as sa

from .types import UTCDateTime

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
    sa.Column("created_at", UTCDateTime, nullable=False),
    # set while an admin has disabled the user: no sign-in, no token of theirs is accepted (core_0002)
    sa.Column("disabled_at", UTCDateTime, nullable=True),
)

api_tokens = sa.Table(
    "api_tokens",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("prefix", sa.String(16), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("last_used_at", UTCDateTime, nullable=True),
    sa.Column("revoked_at", UTCDateTime, nullable=True),
)
