"""context: sessions, hierarchical store, turn context, per-session term counts

Revision ID: context_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "context_0001"
down_revision = None
branch_labels = ("context",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "context_sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("title", sa.String(200), nullable=True),
        sa.Column("language", sa.String(2), nullable=True),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_context_sessions_user_updated", "context_sessions", ["user_id", "updated_at"])
    op.create_index("ix_context_sessions_updated", "context_sessions", ["updated_at"])
    op.create_table(
        "context_items",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "session_id",
            sa.String(32),
            sa.ForeignKey("context_sessions.id", name="fk_context_items_session_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("tier", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("keywords", sa.JSON, nullable=False),
        sa.Column("terms", sa.JSON, nullable=False),
        sa.Column("slots", sa.JSON, nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("parent_id", sa.String(32), nullable=True),
        sa.Column("superseded_by", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_context_items_session", "context_items", ["session_id"])
    op.create_table(
        "context_turns",
        sa.Column(
            "session_id",
            sa.String(32),
            sa.ForeignKey("context_sessions.id", name="fk_context_turns_session_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("turn", sa.Integer, primary_key=True),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("response", sa.Text, nullable=True),
        sa.Column("language", sa.String(2), nullable=False),
        sa.Column("intent", sa.JSON, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("keywords", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "context_terms",
        sa.Column(
            "session_id",
            sa.String(32),
            sa.ForeignKey("context_sessions.id", name="fk_context_terms_session_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("term", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("docs", sa.Integer, nullable=False),
    )
    op.create_index("ix_context_terms_user_term", "context_terms", ["user_id", "term"])


def downgrade() -> None:
    op.drop_table("context_terms")
    op.drop_table("context_turns")
    op.drop_table("context_items")
    op.drop_table("context_sessions")
