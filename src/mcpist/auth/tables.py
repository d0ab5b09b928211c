"""Tables of who may sign in (migration `oauth_0001`): password hashes and failed sign-ins."""

from __future__ import annotations

import sqlalchemy as sa

from mcpist.storage.tables import metadata


def _user_fk() -> sa.ForeignKey:
    return sa.ForeignKey("users.id", ondelete="CASCADE")


user_passwords = sa.Table(
    "user_passwords",
    metadata,
    sa.Column("user_id", sa.String(36), _user_fk(), primary_key=True),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

login_failures = sa.Table(
    "login_failures",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key", sa.String(400), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_login_failures_key_at", "key", "at"),
)
