"""The module's tables (created by migrations/context_0001_sessions.py and context_0002; keep them in step)."""

from __future__ import annotations

import sqlalchemy as sa

from mcpist.storage.types import UTCDateTime

metadata = sa.MetaData()

sessions = sa.Table(
    "context_sessions",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.String(64), nullable=False),
    sa.Column("title", sa.String(200), nullable=True),
    sa.Column("language", sa.String(2), nullable=True),
    sa.Column("turns", sa.Integer, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

items = sa.Table(
    "context_items",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("session_id", sa.String(32), sa.ForeignKey("context_sessions.id", ondelete="CASCADE"), nullable=False),
    sa.Column("tier", sa.String(8), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("keywords", sa.JSON, nullable=False),
    sa.Column("terms", sa.JSON, nullable=False),
    sa.Column("slots", sa.JSON, nullable=False),
    sa.Column("turn", sa.Integer, nullable=False),
    sa.Column("parent_id", sa.String(32), nullable=True),
    sa.Column("superseded_by", sa.String(32), nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("label", sa.String(32), nullable=False, server_default=""),
    sa.Column("reason", sa.Text, nullable=False, server_default=""),
    sa.Column("pinned", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("dropped", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("replaced_reason", sa.Text, nullable=True),
)

turns = sa.Table(
    "context_turns",
    metadata,
    sa.Column("session_id", sa.String(32), sa.ForeignKey("context_sessions.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("turn", sa.Integer, primary_key=True),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("response", sa.Text, nullable=True),
    sa.Column("language", sa.String(2), nullable=False),
    sa.Column("intent", sa.JSON, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("keywords", sa.JSON, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

terms = sa.Table(
    "context_terms",
    metadata,
    sa.Column("session_id", sa.String(32), sa.ForeignKey("context_sessions.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("term", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(64), nullable=False),
    sa.Column("docs", sa.Integer, nullable=False),
)
