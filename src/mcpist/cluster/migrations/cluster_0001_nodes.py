"""cluster: the processes serving this MCPist and where each can be reached

Revision ID: cluster_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "cluster_0001"
down_revision = None
branch_labels = ("cluster",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cluster_nodes",
        sa.Column("node_id", sa.String(32), primary_key=True),
        sa.Column("address", sa.String(400), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("cluster_nodes")
