"""audit: one row per tool call (who, module, tool, account, outcome, duration; never arguments)

Revision ID: audit_0001
Revises:
Depends on: core_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "audit_0001"
down_revision = None
branch_labels = ("audit",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "tool_calls",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.String(36), nullable=True),
        sa.Column("token_id", sa.String(64), nullable=True),
        sa.Column("module", sa.String(64), nullable=False),
        sa.Column("tool", sa.String(128), nullable=False),
        sa.Column("account", sa.String(64), nullable=True),
        sa.Column("via", sa.String(16), nullable=False),
        sa.Column("outcome", sa.String(32), nullable=False),
        sa.Column("duration_ms", sa.Integer, nullable=False),
        sa.Column("request_id", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_tool_calls"),
    )
    op.create_index("ix_tool_calls_at", "tool_calls", ["at"])
    op.create_index("ix_tool_calls_user_id", "tool_calls", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_tool_calls_user_id", table_name="tool_calls")
    op.drop_index("ix_tool_calls_at", table_name="tool_calls")
    op.drop_table("tool_calls")
