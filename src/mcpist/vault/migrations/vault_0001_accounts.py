"""vault: accounts, OAuth apps, pending connect flows

Revision ID: vault_0001
Revises:
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "vault_0001"
down_revision = None
branch_labels = ("vault",)
depends_on = "core_0001"


def _sealed(nullable: bool = False) -> list[sa.Column[Any]]:
    return [
        sa.Column("kek_id", sa.String(32), nullable=nullable),
        sa.Column("wrapped_key", sa.LargeBinary, nullable=nullable),
        sa.Column("ciphertext", sa.LargeBinary, nullable=nullable),
    ]


def _user_fk(table: str) -> sa.ForeignKey:
    return sa.ForeignKey("users.id", ondelete="CASCADE", name=f"fk_{table}_user_id_users")


def upgrade() -> None:
    op.create_table(
        "vault_accounts",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("service", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(36), _user_fk("vault_accounts"), nullable=True),
        sa.Column("role", sa.String(64), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        *_sealed(),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("scopes", sa.Text, nullable=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("(user_id IS NULL) <> (role IS NULL)", name="ck_vault_accounts_one_owner"),
        sa.UniqueConstraint("user_id", "service", "name", name="uq_vault_accounts_user_id"),
        sa.UniqueConstraint("role", "service", "name", name="uq_vault_accounts_role"),
    )
    op.create_index("ix_vault_accounts_service", "vault_accounts", ["service"])
    op.create_index("ix_vault_accounts_kek_id", "vault_accounts", ["kek_id"])
    op.create_table(
        "vault_oauth_apps",
        sa.Column("service", sa.String(32), primary_key=True),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_method", sa.String(32), nullable=False),
        *_sealed(),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "vault_connect_flows",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("state_hash", sa.String(64), nullable=True),
        sa.Column("browser_hash", sa.String(64), nullable=True),
        sa.Column("user_id", sa.String(36), _user_fk("vault_connect_flows"), nullable=False),
        sa.Column("role", sa.String(64), nullable=True),
        sa.Column("service", sa.String(32), nullable=False),
        sa.Column("account_name", sa.String(64), nullable=False),
        sa.Column("elicitation_id", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        *_sealed(nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("token_hash", name="uq_vault_connect_flows_token_hash"),
        sa.UniqueConstraint("state_hash", name="uq_vault_connect_flows_state_hash"),
    )
    op.create_index("ix_vault_connect_flows_expires_at", "vault_connect_flows", ["expires_at"])


def downgrade() -> None:
    op.drop_table("vault_connect_flows")
    op.drop_table("vault_oauth_apps")
    op.drop_table("vault_accounts")
