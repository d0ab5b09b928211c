"""web UI: profiles (language, time zone, disabled) and the admin audit log

Revision ID: web_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "web_0001"
down_revision = None
branch_labels = ("web",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_profiles",
        sa.Column("user_id", sa.String(36), primary_key=True),
        sa.Column("display_name", sa.String(100), nullable=False, server_default=""),
        sa.Column("language", sa.String(8), nullable=True),
        sa.Column("time_zone", sa.String(64), nullable=True),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("held_roles", sa.Text, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE", name="fk_web_profiles_user_id_users"),
        sa.PrimaryKeyConstraint("user_id", name="pk_web_profiles"),
    )
    op.create_table(
        "web_audit",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor_id", sa.String(36), nullable=True),
        sa.Column("actor_email", sa.String(320), nullable=False),
        sa.Column("action", sa.String(48), nullable=False),
        sa.Column("target", sa.String(320), nullable=False, server_default=""),
        sa.Column("detail", sa.String(1000), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("id", name="pk_web_audit"),
    )
    op.create_index("ix_web_audit_at", "web_audit", ["at"])
    op.create_index("ix_web_audit_action", "web_audit", ["action"])


def downgrade() -> None:
    op.drop_table("web_audit")
    op.drop_table("web_profiles")
