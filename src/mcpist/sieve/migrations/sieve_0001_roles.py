"""Tool Sieve: roles and their permissions, user roles, token narrowing, security events

Revision ID: sieve_0001
Revises:
Depends on: core_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "sieve_0001"
down_revision = None
branch_labels = ("sieve",)
depends_on = "core_0001"


def _fk(table: str, column: str, target: str) -> sa.ForeignKey:
    return sa.ForeignKey(f"{target}.id", ondelete="CASCADE", name=f"fk_{table}_{column}_{target}")


def upgrade() -> None:
    op.create_table(
        "roles",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("description", sa.String(500), nullable=False, server_default=""),
        sa.Column("builtin", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_roles"),
        sa.UniqueConstraint("name", name="uq_roles_name"),
    )
    op.create_table(
        "role_permissions",
        sa.Column("role_id", sa.String(36), _fk("role_permissions", "role_id", "roles"), nullable=False),
        sa.Column("effect", sa.String(8), nullable=False),
        sa.Column("pattern", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("role_id", "effect", "pattern", name="pk_role_permissions"),
    )
    op.create_table(
        "user_roles",
        sa.Column("user_id", sa.String(36), _fk("user_roles", "user_id", "users"), nullable=False),
        sa.Column("role_id", sa.String(36), _fk("user_roles", "role_id", "roles"), nullable=False),
        sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "role_id", name="pk_user_roles"),
    )
    op.create_index("ix_user_roles_role_id", "user_roles", ["role_id"])
    op.create_table(
        "narrowed_tokens",
        sa.Column("token_id", sa.String(36), _fk("narrowed_tokens", "token_id", "api_tokens"), nullable=False),
        sa.PrimaryKeyConstraint("token_id", name="pk_narrowed_tokens"),
    )
    op.create_table(
        "token_roles",
        sa.Column("token_id", sa.String(36), _fk("token_roles", "token_id", "api_tokens"), nullable=False),
        sa.Column("role_id", sa.String(36), _fk("token_roles", "role_id", "roles"), nullable=False),
        sa.PrimaryKeyConstraint("token_id", "role_id", name="pk_token_roles"),
    )
    op.create_index("ix_token_roles_role_id", "token_roles", ["role_id"])
    op.create_table(
        "security_events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.String(36), nullable=True),
        sa.Column("token_id", sa.String(36), nullable=True),
        sa.Column("module", sa.String(64), nullable=False),
        sa.Column("tool", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("via", sa.String(16), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_security_events"),
    )
    op.create_index("ix_security_events_at", "security_events", ["at"])


def downgrade() -> None:
    op.drop_index("ix_security_events_at", table_name="security_events")
    op.drop_table("security_events")
    op.drop_index("ix_token_roles_role_id", table_name="token_roles")
    op.drop_table("token_roles")
    op.drop_table("narrowed_tokens")
    op.drop_index("ix_user_roles_role_id", table_name="user_roles")
    op.drop_table("user_roles")
    op.drop_table("role_permissions")
    op.drop_table("roles")
