"""tasks: MCP tasks, their owner, status and outcome

Revision ID: tasks_0001
Revises:
Depends on: core_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "tasks_0001"
down_revision = None
branch_labels = ("tasks",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(36), nullable=False),
        sa.Column("token_id", sa.String(64), nullable=True),
        sa.Column("tool", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("status_message", sa.String(1000), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("is_error", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("pending_input", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ttl_ms", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("poll_ms", sa.Integer, nullable=False),
        sa.Column("runner", sa.String(64), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_tasks"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE", name="fk_tasks_user_id_users"),
    )
    op.create_index("ix_tasks_expires_at", "tasks", ["expires_at"])
    op.create_index("ix_tasks_owner", "tasks", ["user_id", "token_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_tasks_owner", table_name="tasks")
    op.drop_index("ix_tasks_expires_at", table_name="tasks")
    op.drop_table("tasks")
