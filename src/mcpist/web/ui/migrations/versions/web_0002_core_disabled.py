"""web UI: a user's disabled state moves to the core (users.disabled_at, core_0002), where token
verification sees it; web_profiles.disabled_at is no longer read

Revision ID: web_0002
Revises: web_0001
"""

from alembic import op

revision = "web_0002"
down_revision = "web_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "UPDATE users SET disabled_at = "
        "(SELECT p.disabled_at FROM web_profiles p WHERE p.user_id = users.id) "
        "WHERE disabled_at IS NULL AND id IN (SELECT user_id FROM web_profiles WHERE disabled_at IS NOT NULL)"
    )
    op.execute("UPDATE web_profiles SET disabled_at = NULL")


def downgrade() -> None:
    op.execute(
        "UPDATE web_profiles SET disabled_at = (SELECT u.disabled_at FROM users u WHERE u.id = web_profiles.user_id)"
    )
