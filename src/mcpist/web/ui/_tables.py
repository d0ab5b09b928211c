"""The UI's own tables (migrations in `migrations/`, their own Alembic version table): per-user
settings, the record of admin actions and access requests, and the e-mail alerts' settings and state."""

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
    # no longer read: a user's disabled state is the core's `users.disabled_at` (web_0002 moved it there)
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

# The SMTP server alerts go through (one row, id 1; migration web_0003). The password is sealed by the
# vault's envelope encryption, bound to this row; it is never shown again.
mail = sa.Table(
    "web_mail",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("host", sa.String(255), nullable=False, server_default=""),
    sa.Column("port", sa.Integer, nullable=False),
    sa.Column("security", sa.String(16), nullable=False),
    sa.Column("username", sa.String(320), nullable=False, server_default=""),
    sa.Column("kek_id", sa.String(32), nullable=True),
    sa.Column("wrapped_key", sa.LargeBinary, nullable=True),
    sa.Column("ciphertext", sa.LargeBinary, nullable=True),
    sa.Column("sender", sa.String(320), nullable=False, server_default=""),
    sa.Column("recipients", sa.Text, nullable=False, server_default=""),
    sa.Column("alert_reauth", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("alert_denied", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("denied_threshold", sa.Integer, nullable=False),
    sa.Column("denied_window_min", sa.Integer, nullable=False),
    sa.Column("throttle_min", sa.Integer, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

# When each kind of alert last went out: at most one per kind per `throttle_min`, across replicas.
alerts = sa.Table(
    "web_alerts",
    metadata,
    sa.Column("kind", sa.String(32), primary_key=True),
    sa.Column("sent_at", UTCDateTime, nullable=False),
)
