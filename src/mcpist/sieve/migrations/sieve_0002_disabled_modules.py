"""Tool Sieve: modules an admin switched off for everyone

Revision ID: sieve_0002
Revises: sieve_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "sieve_0002"
down_revision = "sieve_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "disabled_modules",
        sa.Column("module", sa.String(64), nullable=False),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("module", name="pk_disabled_modules"),
    )


def downgrade() -> None:
    op.drop_table("disabled_modules")
