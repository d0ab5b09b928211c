"""web UI: the SMTP settings of e-mail alerts (password sealed) and when each kind of alert last went out

Revision ID: web_0003
Revises: web_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "web_0003"
down_revision = "web_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_mail",
        sa.Column("id", sa.Integer, autoincrement=False),
        sa.Column("host", sa.String(255), nullable=False, server_default=""),
        sa.Column("port", sa.Integer, nullable=False),
        sa.Column("security", sa.String(16), nullable=False),
        sa.Column("username", sa.String(320), nullable=False, server_default=""),
        sa.Column("kek_id", sa.String(32), nullable=True),
        sa.Column("wrapped_key", sa.LargeBinary, nullable=True),
        sa.Column("ciphertext", sa.LargeBinary, nullable=True),
        sa.Column("sender", sa.String(320), nullable=False, server_default=""),
        sa.Column("recipients", sa.Text, nullable=False, server_default=""),
        sa.Column("alert_reauth", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("alert_denied", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("denied_threshold", sa.Integer, nullable=False),
        sa.Column("denied_window_min", sa.Integer, nullable=False),
        sa.Column("throttle_min", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_web_mail"),
    )
    op.create_table(
        "web_alerts",
        sa.Column("kind", sa.String(32)),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kind", name="pk_web_alerts"),
    )


def downgrade() -> None:
    op.drop_table("web_alerts")
    op.drop_table("web_mail")
