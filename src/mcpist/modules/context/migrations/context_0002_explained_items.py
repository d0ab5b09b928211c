"""context: why each item is stored (label, reason), pinned and dropped items, why one was replaced

Revision ID: context_0002
Revises: context_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "context_0002"
down_revision = "context_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("context_items") as batch:
        batch.add_column(sa.Column("label", sa.String(32), nullable=False, server_default=""))
        batch.add_column(sa.Column("reason", sa.Text, nullable=False, server_default=""))
        batch.add_column(sa.Column("pinned", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("dropped", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("replaced_reason", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("context_items") as batch:
        for name in ("replaced_reason", "dropped", "pinned", "reason", "label"):
            batch.drop_column(name)
