"""users: disabled_at (an admin disabled the user: no sign-in, no token of theirs accepted)

Revision ID: core_0002
Revises: core_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "core_0002"
down_revision = "core_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("disabled_at")
