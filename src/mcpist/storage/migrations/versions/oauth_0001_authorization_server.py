"""oauth: clients, pending authorizations, codes, tokens, passwords, failed sign-ins

Revision ID: oauth_0001
Revises:
Depends on: core_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "oauth_0001"
down_revision = None
branch_labels = ("oauth",)
depends_on = "core_0001"


def _user_fk(table: str) -> sa.ForeignKey:
    return sa.ForeignKey("users.id", ondelete="CASCADE", name=f"fk_{table}_user_id_users")


def upgrade() -> None:
    op.create_table(
        "oauth_clients",
        sa.Column("client_id", sa.String(255), primary_key=True),
        sa.Column("info", sa.JSON, nullable=False),
        sa.Column("secret_sealed", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "oauth_requests",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("params", sa.JSON, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "oauth_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("grant_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("user_id", sa.String(36), _user_fk("oauth_codes"), nullable=False),
        sa.Column("scopes", sa.JSON, nullable=False),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("redirect_uri", sa.Text, nullable=False),
        sa.Column("redirect_uri_explicit", sa.Boolean, nullable=False),
        sa.Column("resource", sa.Text, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "oauth_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("grant_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("user_id", sa.String(36), _user_fk("oauth_tokens"), nullable=False),
        sa.Column("scopes", sa.JSON, nullable=False),
        sa.Column("resource", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_oauth_tokens_grant_id", "oauth_tokens", ["grant_id"])
    op.create_table(
        "user_passwords",
        sa.Column("user_id", sa.String(36), _user_fk("user_passwords"), primary_key=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(400), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_login_failures_key_at", "login_failures", ["key", "at"])


def downgrade() -> None:
    op.drop_table("login_failures")
    op.drop_table("user_passwords")
    op.drop_table("oauth_tokens")
    op.drop_table("oauth_codes")
    op.drop_table("oauth_requests")
    op.drop_table("oauth_clients")
