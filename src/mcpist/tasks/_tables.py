"""The tasks table: one row per MCP task, its owner, status and outcome.

Migrations: the `tasks` branch in `migrations/` beside this file.
"""

from __future__ import annotations

import sqlalchemy as sa

from mcpist.storage.tables import metadata as core_metadata
from mcpist.storage.tables import users
from mcpist.storage.types import UTCDateTime

metadata = sa.MetaData(naming_convention=core_metadata.naming_convention)

tasks = sa.Table(
    "tasks",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(36), sa.ForeignKey(users.c.id, ondelete="CASCADE"), nullable=False),
    # no foreign key: an OAuth grant's id names no api_tokens row
    sa.Column("token_id", sa.String(64), nullable=True),
    sa.Column("tool", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("status_message", sa.String(1000), nullable=True),
    # the outcome as JSON: the result of the underlying request in its wire form, or its JSON-RPC error
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("is_error", sa.Boolean, nullable=False, server_default=sa.false()),
    # while input_required: the URL elicitation the task waits on, as JSON
    sa.Column("pending_input", sa.Text, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("ttl_ms", sa.BigInteger, nullable=False),
    sa.Column("expires_at", UTCDateTime, nullable=False, index=True),
    sa.Column("poll_ms", sa.Integer, nullable=False),
    sa.Column("runner", sa.String(64), nullable=True),
    sa.Column("lease_until", UTCDateTime, nullable=True),
    sa.Index("ix_tasks_owner", "user_id", "token_id", "created_at"),
)
