"""Shared plumbing: the module state, write transactions, audit rows, id checks."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import anyio.to_thread
import numpy as np
from numpy.typing import NDArray
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from mcpist.modules import Caller, InvalidArgument, ToolContext, embedding_timer

from .analyzer import Analyzer
from .embeddings import Embedder
from .gate import Gate
from .settings import MemorySettings
from .tables import audit_logs
from .vector_index import SqliteVectorIndex

T = TypeVar("T")


async def _timed(work: Awaitable[T]) -> T:
    # inside the gate: the time embedding took, not the wait for a turn
    with embedding_timer("memory"):
        return await work


@dataclass
class MemoryState:
    """What the startup yields: one per server process."""

    engine: AsyncEngine
    settings: MemorySettings
    embedder: Embedder
    analyzer: Analyzer
    index: SqliteVectorIndex | None  # None on PostgreSQL, where pgvector searches
    gate: Gate | None = None
    """Bounds embedding and tokenising while serving (None in administrative commands)."""

    async def _cpu(self, what: str, work: Callable[[], Awaitable[T]]) -> T:
        return await (self.gate.run(what, work) if self.gate is not None else work())

    async def embed_document(self, text: str) -> NDArray[np.float32]:
        rows = await self._cpu("embedding", lambda: _timed(self.embedder.embed_documents([text])))
        first: NDArray[np.float32] = rows[0]
        return first

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        return await self._cpu("embedding the query", lambda: _timed(self.embedder.embed_query(text)))

    async def terms(self, text: str) -> list[str]:
        return await self._cpu("tokenising", lambda: anyio.to_thread.run_sync(self.analyzer.terms, text))

    async def query_terms(self, text: str) -> list[str]:
        return await self._cpu(
            "tokenising the query", lambda: anyio.to_thread.run_sync(self.analyzer.query_terms, text)
        )

    @property
    def sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def minimum_similarity(self) -> float:
        ms = self.settings.minimum_similarity
        return self.embedder.minimum_similarity if ms is None else ms

    @property
    def duplicate_similarity(self) -> float:
        ds = self.settings.duplicate_similarity
        return self.embedder.duplicate_similarity if ds is None else ds


Ctx = ToolContext[MemorySettings, MemoryState]
"""What every memory tool receives: its settings and the state its startup yielded, typed."""


def now() -> datetime:
    return datetime.now(UTC)


@asynccontextmanager
async def write_tx(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A transaction that may write; commits on success.

    SQLite takes the write lock at BEGIN IMMEDIATE (waiting up to the busy timeout): a deferred
    transaction that reads first and writes later fails at once when another writer got in
    between, busy timeout or not. PostgreSQL uses READ COMMITTED plus row locks.
    """
    async with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            await conn.exec_driver_sql("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            await conn.rollback()
            raise
        await conn.commit()


# deadlock_detected, serialization_failure: PostgreSQL rolled the transaction back and asks to run it again
_RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})
WRITE_TRIES = 3


def _retryable(exc: DBAPIError) -> bool:
    return getattr(exc.orig, "sqlstate", None) in _RETRYABLE_SQLSTATES


async def retry_aborted(op: Callable[[], Awaitable[T]], tries: int = WRITE_TRIES) -> T:
    """Run a whole write operation again when the database aborted its transaction to break a deadlock.

    Safe because the aborted transaction committed nothing; `op` starts its own transaction.
    """
    for attempt in range(1, tries + 1):
        try:
            return await op()
        except DBAPIError as exc:
            if attempt == tries or not _retryable(exc):
                raise
    raise AssertionError("unreachable")


async def audit(
    conn: AsyncConnection,
    caller: Caller,
    *,
    owner: str,
    namespace: str,
    operation: str,
    target: str,
    diff: dict[str, Any],
) -> None:
    await conn.execute(
        audit_logs.insert().values(
            at=now(),
            owner_id=owner,
            actor_user_id=caller.user_id,
            actor_token_id=caller.token_id,
            namespace=namespace,
            operation=operation,
            target=target,
            diff=diff,
        )
    )


def memo_id(value: str, field: str = "memo_id") -> str:
    """The canonical form of a memo id.

    Raises:
        InvalidArgument: not a UUID.
    """
    try:
        return str(uuid.UUID(value))
    except (ValueError, AttributeError, TypeError):
        raise InvalidArgument(f"'{field}' must be a UUID, got {value!r}", {"field": field}) from None


def check_namespace(value: str, field: str = "namespace") -> str:
    ns = value.strip()
    if not ns or len(ns) > 200:
        raise InvalidArgument(f"'{field}' must be 1-200 characters", {"field": field})
    return check_text(ns, field)


def check_text(value: str, field: str) -> str:
    """Raises: InvalidArgument: `value` holds a NUL character (PostgreSQL text and jsonb cannot)."""
    if "\x00" in value:
        raise InvalidArgument(f"'{field}' must not contain NUL characters", {"field": field})
    return value
