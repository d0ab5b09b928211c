"""The authorization server's tables (migration `oauth_0001`). Every secret is stored as its SHA-256.

Passwords and failed sign-ins, made by the same migration, are in `mcpist.auth.tables`.
"""

from __future__ import annotations

import sqlalchemy as sa

from mcpist.storage.tables import metadata


def _user_fk() -> sa.ForeignKey:
    return sa.ForeignKey("users.id", ondelete="CASCADE")


oauth_clients = sa.Table(
    "oauth_clients",
    metadata,
    sa.Column("client_id", sa.String(255), primary_key=True),
    sa.Column("info", sa.JSON, nullable=False),
    sa.Column("secret_sealed", sa.Text, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

oauth_requests = sa.Table(
    "oauth_requests",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("client_id", sa.String(255), nullable=False),
    sa.Column("params", sa.JSON, nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)

oauth_codes = sa.Table(
    "oauth_codes",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("grant_id", sa.String(36), nullable=False),
    sa.Column("client_id", sa.String(255), nullable=False),
    sa.Column("user_id", sa.String(36), _user_fk(), nullable=False),
    sa.Column("scopes", sa.JSON, nullable=False),
    sa.Column("code_challenge", sa.String(128), nullable=False),
    sa.Column("redirect_uri", sa.Text, nullable=False),
    sa.Column("redirect_uri_explicit", sa.Boolean, nullable=False),
    sa.Column("resource", sa.Text, nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
)

oauth_tokens = sa.Table(
    "oauth_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("grant_id", sa.String(36), nullable=False, index=True),
    sa.Column("client_id", sa.String(255), nullable=False),
    sa.Column("user_id", sa.String(36), _user_fk(), nullable=False),
    sa.Column("scopes", sa.JSON, nullable=False),
    sa.Column("resource", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)
