"""vault: read-only accounts, and whether (and until when) an account can refresh itself

Revision ID: vault_0003
Revises: vault_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "vault_0003"
down_revision = "vault_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("vault_accounts") as batch:
        batch.add_column(sa.Column("read_only", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("refreshable", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("refresh_expires_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("vault_connect_flows") as batch:
        batch.add_column(sa.Column("read_only", sa.Boolean, nullable=False, server_default=sa.false()))
    # an OAuth account stored before this revision may hold a refresh token: let the broker try it
    op.execute(sa.text("UPDATE vault_accounts SET refreshable = :yes WHERE kind = 'oauth2'").bindparams(yes=True))


def downgrade() -> None:
    with op.batch_alter_table("vault_connect_flows") as batch:
        batch.drop_column("read_only")
    with op.batch_alter_table("vault_accounts") as batch:
        batch.drop_column("refresh_expires_at")
        batch.drop_column("refreshable")
        batch.drop_column("read_only")
