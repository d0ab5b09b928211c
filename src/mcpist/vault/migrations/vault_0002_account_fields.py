"""vault: non-secret account fields a module declares (site, email, ...)

Revision ID: vault_0002
Revises: vault_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "vault_0002"
down_revision = "vault_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("vault_accounts") as batch:
        batch.add_column(sa.Column("fields", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("vault_accounts") as batch:
        batch.drop_column("fields")
