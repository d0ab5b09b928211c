"""memory: entries, relations, audit log, keyword and vector search structures

Revision ID: memory_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "memory_0001"
down_revision = None
branch_labels = ("memory",)
depends_on = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    pg = op.get_bind().dialect.name == "postgresql"
    if pg:
        op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    big = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "memory_entries",
        sa.Column("pk", big, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("owner_id", sa.String(255), nullable=False),
        sa.Column("namespace", sa.String(200), nullable=False),
        sa.Column("title", sa.Text, nullable=True),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("metadata", _json(), nullable=False),
        sa.Column("embedding_model", sa.String(200), nullable=True),
        sa.Column("embedding_dim", sa.Integer, nullable=True),
        sa.Column("search_terms", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.UniqueConstraint("owner_id", "namespace", "id", name="uq_memory_entries_owner_ns_id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_memory_entries_recent", "memory_entries", ["owner_id", "namespace", "updated_at"])
    if pg:
        op.execute("ALTER TABLE memory_entries ADD COLUMN embedding vector")
        op.execute("ALTER TABLE memory_entries ADD COLUMN search_tsv tsvector")
        op.execute("CREATE INDEX ix_memory_entries_tsv ON memory_entries USING gin (search_tsv)")
        op.execute("CREATE INDEX ix_memory_entries_metadata ON memory_entries USING gin (metadata jsonb_path_ops)")
    else:
        op.add_column("memory_entries", sa.Column("embedding", sa.LargeBinary, nullable=True))
        op.add_column("memory_entries", sa.Column("search_tsv", sa.Text, nullable=True))
        op.create_table(
            "memory_vector_log",
            sa.Column("entry_pk", sa.Integer, primary_key=True),
            sa.Column("seq", sa.Integer, nullable=False),
            sa.UniqueConstraint("seq", name="uq_memory_vector_log_seq"),
        )
        # Each change to an entry's vector or terms takes the next number (see vector_index.py);
        # in a trigger, so no write path can forget it. SQLite's keyword search is in memory too
        # (keyword_index.py), fed from the same log.
        bump = (
            "INSERT OR REPLACE INTO memory_vector_log (entry_pk, seq) VALUES ({pk}, "
            "(SELECT COALESCE(MAX(seq), 0) + 1 FROM memory_vector_log))"
        )
        op.execute(f"CREATE TRIGGER memory_vec_ai AFTER INSERT ON memory_entries BEGIN {bump.format(pk='new.pk')}; END")
        op.execute(
            "CREATE TRIGGER memory_vec_au AFTER UPDATE OF embedding, embedding_model, owner_id, namespace, "
            f"search_terms ON memory_entries BEGIN {bump.format(pk='new.pk')}; END"
        )
        op.execute(f"CREATE TRIGGER memory_vec_ad AFTER DELETE ON memory_entries BEGIN {bump.format(pk='old.pk')}; END")

    op.create_table(
        "memory_relations",
        sa.Column("owner_id", sa.String(255), nullable=False),
        sa.Column("namespace", sa.String(200), nullable=False),
        sa.Column("source_memo_id", sa.String(36), nullable=False),
        sa.Column("target_memo_id", sa.String(36), nullable=False),
        sa.Column("tag", sa.String(64), nullable=False),
        sa.Column("weight", sa.Numeric(3, 2), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint(
            "owner_id", "namespace", "source_memo_id", "target_memo_id", "tag", name="pk_memory_relations"
        ),
        sa.ForeignKeyConstraint(
            ["owner_id", "namespace", "source_memo_id"],
            ["memory_entries.owner_id", "memory_entries.namespace", "memory_entries.id"],
            ondelete="CASCADE",
            name="fk_memory_relations_source",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id", "namespace", "target_memo_id"],
            ["memory_entries.owner_id", "memory_entries.namespace", "memory_entries.id"],
            ondelete="CASCADE",
            name="fk_memory_relations_target",
        ),
        sa.CheckConstraint("weight >= 0 AND weight <= 1", name="ck_memory_relations_weight"),
    )
    op.create_index(
        "ix_memory_relations_source", "memory_relations", ["owner_id", "namespace", "source_memo_id", "tag"]
    )
    op.create_index(
        "ix_memory_relations_target", "memory_relations", ["owner_id", "namespace", "target_memo_id", "tag"]
    )
    op.create_table(
        "memory_audit_logs",
        sa.Column("id", big, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("owner_id", sa.String(255), nullable=False),
        sa.Column("actor_user_id", sa.String(255), nullable=False),
        sa.Column("actor_token_id", sa.String(255), nullable=True),
        sa.Column("namespace", sa.String(200), nullable=False),
        sa.Column("operation", sa.String(32), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("diff", _json(), nullable=False),
    )
    op.create_index("ix_memory_audit_logs_owner", "memory_audit_logs", ["owner_id", "namespace", "at"])


def downgrade() -> None:
    pg = op.get_bind().dialect.name == "postgresql"
    op.drop_table("memory_audit_logs")
    op.drop_table("memory_relations")
    if not pg:
        op.drop_table("memory_vector_log")
    op.drop_table("memory_entries")
