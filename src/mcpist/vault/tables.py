"""The vault's tables (migrations: the `vault` branch in `migrations/` beside this file).

Every secret sits in three columns: `kek_id`, `wrapped_key` and `ciphertext` (see crypto.py).
Everything else in these rows is metadata that may be listed.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from mcpist.storage.tables import users

metadata = sa.MetaData()


def _sealed() -> list[sa.Column[Any]]:
    return [
        sa.Column("kek_id", sa.String(32), nullable=False),
        sa.Column("wrapped_key", sa.LargeBinary, nullable=False),
        sa.Column("ciphertext", sa.LargeBinary, nullable=False),
    ]


accounts = sa.Table(
    "vault_accounts",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("service", sa.String(32), nullable=False),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("user_id", sa.String(36), sa.ForeignKey(users.c.id, ondelete="CASCADE"), nullable=True),
    sa.Column("role", sa.String(64), nullable=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    *_sealed(),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("scopes", sa.Text, nullable=True),
    sa.Column("fields", sa.Text, nullable=True),  # JSON: the module's declared non-secret account fields
    sa.Column("read_only", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("refreshable", sa.Boolean, nullable=False, server_default=sa.false()),  # holds a refresh token
    sa.Column("refresh_expires_at", sa.DateTime(timezone=True), nullable=True),  # when the provider said so
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

oauth_apps = sa.Table(
    "vault_oauth_apps",
    metadata,
    sa.Column("service", sa.String(32), primary_key=True),
    sa.Column("client_id", sa.String(255), nullable=False),
    sa.Column("auth_method", sa.String(32), nullable=False),
    *_sealed(),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

connect_flows = sa.Table(
    "vault_connect_flows",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("state_hash", sa.String(64), nullable=True, unique=True),
    sa.Column("browser_hash", sa.String(64), nullable=True),
    sa.Column("user_id", sa.String(36), sa.ForeignKey(users.c.id, ondelete="CASCADE"), nullable=False),
    sa.Column("role", sa.String(64), nullable=True),
    sa.Column("service", sa.String(32), nullable=False),
    sa.Column("account_name", sa.String(64), nullable=False),
    sa.Column("elicitation_id", sa.String(64), nullable=True),
    sa.Column("read_only", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("kek_id", sa.String(32), nullable=True),
    sa.Column("wrapped_key", sa.LargeBinary, nullable=True),
    sa.Column("ciphertext", sa.LargeBinary, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)

SEALED_TABLES = (accounts, oauth_apps, connect_flows)
