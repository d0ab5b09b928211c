"""The module's tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

Embeddings are float32 blobs on SQLite and pgvector `vector` values on PostgreSQL;
asyncpg passes `vector` as text, so the PostgreSQL form is the pgvector literal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, UserDefinedType

from mcpist.storage.types import UTCDateTime

Vector = NDArray[np.float32]


class _PgVector(UserDefinedType[Any]):
    cache_ok = True

    def get_col_spec(self, **_kw: Any) -> str:
        return "vector"


class Embedding(TypeDecorator[Vector]):
    """A float32 vector: BLOB on SQLite, pgvector on PostgreSQL."""

    impl = sa.LargeBinary
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(_PgVector())
        return dialect.type_descriptor(sa.LargeBinary())

    def process_bind_param(self, value: Vector | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if dialect.name == "postgresql":
            return to_pg_vector(value)
        return np.ascontiguousarray(value, dtype=np.float32).tobytes()

    def process_result_value(self, value: Any, dialect: Dialect) -> Vector | None:
        if value is None:
            return None
        if isinstance(value, str):
            return from_pg_vector(value)
        return np.frombuffer(value, dtype=np.float32).copy()


def to_pg_vector(value: Vector) -> str:
    return "[" + ",".join(repr(float(x)) for x in np.asarray(value, dtype=np.float32)) + "]"


def from_pg_vector(text: str) -> Vector:
    return np.array(text.strip("[]").split(","), dtype=np.float32)


JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

metadata = sa.MetaData()

entries = sa.Table(
    "memory_entries",
    metadata,
    sa.Column("pk", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("owner_id", sa.String(255), nullable=False),
    sa.Column("namespace", sa.String(200), nullable=False),
    sa.Column("title", sa.Text, nullable=True),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("metadata", JSONType, nullable=False),
    sa.Column("embedding", Embedding, nullable=True),
    sa.Column("embedding_model", sa.String(200), nullable=True),
    sa.Column("embedding_dim", sa.Integer, nullable=True),
    sa.Column("search_terms", sa.Text, nullable=False),
    sa.Column("search_tsv", postgresql.TSVECTOR().with_variant(sa.Text(), "sqlite"), nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
)

relations = sa.Table(
    "memory_relations",
    metadata,
    sa.Column("owner_id", sa.String(255), primary_key=True),
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("source_memo_id", sa.String(36), primary_key=True),
    sa.Column("target_memo_id", sa.String(36), primary_key=True),
    sa.Column("tag", sa.String(64), primary_key=True),
    sa.Column("weight", sa.Numeric(3, 2, asdecimal=False), nullable=False),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
)

audit_logs = sa.Table(
    "memory_audit_logs",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Column("owner_id", sa.String(255), nullable=False),
    sa.Column("actor_user_id", sa.String(255), nullable=False),
    sa.Column("actor_token_id", sa.String(255), nullable=True),
    sa.Column("namespace", sa.String(200), nullable=False),
    sa.Column("operation", sa.String(32), nullable=False),
    sa.Column("target", sa.String(255), nullable=False),
    sa.Column("diff", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
)

# SQLite only: every change to an entry's vector takes the next sequence number here, so an
# in-memory index in any process can catch up by reading the rows above its watermark.
vector_log = sa.Table(
    "memory_vector_log",
    metadata,
    sa.Column("entry_pk", sa.Integer, primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False, unique=True),
)
