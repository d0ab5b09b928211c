"""The `memory` module: its declaration, lifespan and tools (thin wrappers over memos/search/relations)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import anyio.to_thread
import httpx
import sqlalchemy as sa
from pydantic import Field

from mcpist.modules import Module, ModuleResources

from . import memos, relations
from . import search as search_
from .analyzer import Analyzer
from .embeddings import Embedder, LocalEmbedder, OpenAIEmbedder
from .filters import MatchMode
from .gate import Gate
from .models import (
    DeleteResult,
    GraphResult,
    RelationDeleteResult,
    RelationListResult,
    RelationSaveResult,
    SaveResult,
    SearchResult,
)
from .settings import MemorySettings
from .store import Ctx, MemoryState, retry_aborted
from .tables import entries
from .vector_index import SqliteVectorIndex

DOCS = """\
Memos are saved per namespace with optional title and JSON metadata, and found again by meaning,
by words, or both. `save` without memo_id creates; with memo_id it updates (metadata is merged
as a JSON Merge Patch unless metadata_mode is "replace"). Pass the `version` you last read to
`save` or `delete` to fail with CONFLICT instead of overwriting someone else's change.
`search` takes a query (mode hybrid by default: semantic + keyword, Japanese and English), a
pivot_memo_id (memos similar to that one), a metadata_filter, or only a filter (newest first).
Relations link two memos with a tag and a weight; `relation.graph` walks them.
"""

module = Module(
    "memory",
    summary="Memos with semantic + keyword search and a relation graph",
    description="Personal memory: save, search (semantic, keyword, hybrid; Japanese and English) and relate memos.",
    settings=MemorySettings,
    migrations=Path(__file__).parent / "migrations",
    docs=DOCS,
)

Namespace = Annotated[str, Field(min_length=1, max_length=200, description="the memo's namespace, e.g. 'work'")]
OptNamespace = Annotated[
    str | None, Field(default=None, max_length=200, description="namespace; the configured default when omitted")
]
MemoId = Annotated[str, Field(description="a memo's UUID")]
Version = Annotated[
    int | None,
    Field(default=None, ge=1, description="the version you last read; a different stored version is CONFLICT"),
]


async def build_embedder(settings: MemorySettings, http: httpx.AsyncClient | None = None) -> Embedder:
    """The configured provider. `http` serves the OpenAI-compatible provider (tests pass a mock).

    Raises:
        Unavailable: the local model is not installed, or the endpoint does not answer its probe.
        ValueError: provider "openai" without its settings.
    """
    if settings.provider == "local":
        # loading and warming the weights takes seconds: keep the event loop free meanwhile
        return await anyio.to_thread.run_sync(LocalEmbedder, settings.local_model)
    if settings.openai is None:
        raise ValueError("memory.provider is 'openai' but memory.openai is not set")
    cfg = settings.openai
    key = cfg.api_key.get_secret_value() if cfg.api_key is not None else None
    if key is None and cfg.api_key_env:
        key = os.environ.get(cfg.api_key_env)  # the module's edge: read once at start
    embedder = OpenAIEmbedder(cfg, http or httpx.AsyncClient(), key)
    await embedder.probe()
    return embedder


# an arbitrary constant naming "memory's index maintenance" among PostgreSQL advisory locks
_INDEX_LOCK_KEY = 0x4D454D4F  # "MEMO"


async def ensure_pg_index(state: MemoryState) -> None:
    """PostgreSQL: an HNSW index for the active model's dimension (a partial index per dimension)."""
    dim = int(state.embedder.dim)
    async with state.engine.begin() as conn:
        # several workers or replicas start at once: their CREATE INDEX and ANALYZE would take the
        # table's locks in opposite orders and deadlock, so one at a time (released at commit)
        await conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_INDEX_LOCK_KEY})")
        await conn.exec_driver_sql(
            f"CREATE INDEX IF NOT EXISTS ix_memory_entries_hnsw_{dim} ON memory_entries USING hnsw "
            f"((embedding::vector({dim})) vector_cosine_ops) WHERE embedding_dim = {dim}"
        )
        # without statistics (a fresh bulk load) the planner trusts the (owner, namespace) btree
        # and scans the whole namespace exactly: 23 ms instead of 1 ms at 5k memos
        await conn.exec_driver_sql("ANALYZE memory_entries")


@module.startup
async def lifespan(resources: ModuleResources) -> AsyncIterator[MemoryState]:
    settings = resources.settings
    if not isinstance(settings, MemorySettings):
        settings = MemorySettings.model_validate(settings.model_dump())
    engine = resources.engine
    async with httpx.AsyncClient() as http:
        embedder = await build_embedder(settings, http)
        analyzer = Analyzer()
        async with anyio.create_task_group() as tg:
            index = None
            if engine.dialect.name == "sqlite":
                index = SqliteVectorIndex(
                    engine,
                    model=embedder.model,
                    dim=embedder.dim,
                    hnsw_threshold=settings.hnsw_threshold,
                    ef_search=settings.hnsw_ef_search,
                    logger=resources.logger,
                    task_group=tg,
                )
            gate = Gate(tg, settings.cpu_workers, settings.cpu_deadline_s)
            state = MemoryState(engine, settings, embedder, analyzer, index, gate)
            if index is not None:
                await index.sync()
            else:
                await ensure_pg_index(state)
            async with engine.connect() as conn:
                stale = (
                    await conn.execute(sa.select(sa.func.count()).where(entries.c.embedding_model != embedder.model))
                ).scalar_one()
            if stale:
                resources.logger.warning(
                    "memory: %d memos were embedded by another model than %s; run `mcpist memory reembed`",
                    stale,
                    embedder.model,
                )
            yield state
            tg.cancel_scope.cancel()


@module.tool("save")
async def save(
    ctx: Ctx,
    namespace: Namespace,
    content: Annotated[
        str,
        Field(min_length=1, description="the memo's text (semantic search reads its first few thousand characters)"),
    ],
    metadata: Annotated[
        dict[str, Any] | None, Field(default=None, description="JSON object; merged into the stored one on update")
    ] = None,
    memo_id: Annotated[
        str | None, Field(default=None, description="update this memo (created with this id if it does not exist)")
    ] = None,
    title: Annotated[str | None, Field(default=None, max_length=500)] = None,
    version: Version = None,
    metadata_mode: Annotated[
        Literal["merge", "replace"],
        Field(default="merge", description="merge: JSON Merge Patch (null removes a key); replace: overwrite"),
    ] = "merge",
) -> SaveResult:
    """Create or update a memo; returns its id, version and timestamps.

    Warns (never merges) when a nearly identical memo exists in the namespace.
    """
    return await retry_aborted(
        lambda: memos.save(
            ctx.state,
            ctx.caller,
            namespace=namespace,
            content=content,
            metadata=metadata,
            memo_id_=memo_id,
            title=title,
            version=version,
            metadata_mode=metadata_mode,
        )
    )


@module.tool("search", read_only=True)
async def search(
    ctx: Ctx,
    namespace: Namespace,
    query: Annotated[
        str | None, Field(default=None, description="text to search for (at most 2,000 characters by default)")
    ] = None,
    metadata_filter: Annotated[
        dict[str, Any] | None,
        Field(default=None, description="JSON object the memo's metadata must contain (or equal per key)"),
    ] = None,
    metadata_match: Annotated[
        MatchMode, Field(default="contains", description="contains: jsonb @> semantics; exact: equal per key")
    ] = "contains",
    k: Annotated[int | None, Field(default=None, ge=1, le=100, description="how many items (default 10)")] = None,
    minimum_similarity: Annotated[
        float | None, Field(default=None, ge=-1, le=1, description="cosine threshold; default depends on the model")
    ] = None,
    pivot_memo_id: Annotated[
        str | None, Field(default=None, description="find memos similar to this stored memo instead of a query")
    ] = None,
    distance_metric: Annotated[Literal["cosine", "l2"], Field(default="cosine")] = "cosine",
    exclude_pivot: Annotated[bool, Field(default=True, description="leave the pivot memo out of the results")] = True,
    mode: Annotated[
        Literal["hybrid", "semantic", "keyword"] | None,
        Field(default=None, description="hybrid (default with a query): semantic and keyword fused by rank"),
    ] = None,
) -> SearchResult:
    """Search a namespace by meaning, by words (Japanese and English), by metadata, or from a pivot memo."""
    state = ctx.state
    return await search_.search(
        state,
        ctx.caller,
        namespace=namespace,
        query=query,
        metadata_filter=metadata_filter,
        metadata_match=metadata_match,
        k=k or state.settings.default_k,
        minimum_similarity=minimum_similarity,
        pivot_memo_id=pivot_memo_id,
        distance_metric=distance_metric,
        exclude_pivot=exclude_pivot,
        mode=mode,
    )


@module.tool("delete", destructive=True)
async def delete(ctx: Ctx, namespace: Namespace, memo_id: MemoId, version: Version = None) -> DeleteResult:
    """Delete a memo and its relations; NOT_FOUND when there is no such memo."""
    return await retry_aborted(
        lambda: memos.delete(ctx.state, ctx.caller, namespace=namespace, memo_id_=memo_id, version=version)
    )


Tag = Annotated[str, Field(min_length=1, max_length=64, description="the kind of relation, e.g. 'depends_on'")]


@module.tool("relation.save", idempotent=True)
async def relation_save(
    ctx: Ctx,
    source_memo_id: MemoId,
    target_memo_id: MemoId,
    tag: Tag,
    namespace: OptNamespace = None,
    weight: Annotated[
        float | None, Field(default=None, ge=0, le=1, description="confidence 0..1 (1 when created without)")
    ] = None,
    reason: Annotated[str | None, Field(default=None, max_length=2000)] = None,
    version: Version = None,
) -> RelationSaveResult:
    """Create or update a tagged relation between two memos; the version grows only if weight or reason change."""
    return await retry_aborted(
        lambda: relations.save(
            ctx.state,
            ctx.caller,
            namespace=namespace,
            source_memo_id=source_memo_id,
            target_memo_id=target_memo_id,
            tag=tag,
            weight=weight,
            reason=reason,
            version=version,
        )
    )


@module.tool("relation.delete", destructive=True)
async def relation_delete(
    ctx: Ctx,
    source_memo_id: MemoId,
    target_memo_id: MemoId,
    tag: Tag,
    namespace: OptNamespace = None,
    version: Version = None,
) -> RelationDeleteResult:
    """Delete one relation; returns what it was, or NOT_FOUND."""
    return await retry_aborted(
        lambda: relations.delete(
            ctx.state,
            ctx.caller,
            namespace=namespace,
            source_memo_id=source_memo_id,
            target_memo_id=target_memo_id,
            tag=tag,
            version=version,
        )
    )


@module.tool("relation.list", read_only=True)
async def relation_list(
    ctx: Ctx,
    namespace: OptNamespace = None,
    source_memo_id: Annotated[str | None, Field(default=None)] = None,
    target_memo_id: Annotated[str | None, Field(default=None)] = None,
    tag: Annotated[str | None, Field(default=None, max_length=64)] = None,
    limit: Annotated[int, Field(default=100, ge=1, le=500)] = 100,
) -> RelationListResult:
    """List relations (edges) and the memos they connect (nodes)."""
    return await relations.list_(
        ctx.state,
        ctx.caller,
        namespace=namespace,
        source_memo_id=source_memo_id,
        target_memo_id=target_memo_id,
        tag=tag,
        limit=limit,
    )


@module.tool("relation.graph", read_only=True)
async def relation_graph(
    ctx: Ctx,
    start_memo_id: MemoId,
    namespace: OptNamespace = None,
    direction: Annotated[Literal["forward", "backward", "both"], Field(default="forward")] = "forward",
    max_depth: Annotated[int, Field(default=3, ge=1, le=10)] = 3,
    tag: Annotated[str | None, Field(default=None, max_length=64)] = None,
    limit: Annotated[int, Field(default=100, ge=1, le=1000)] = 100,
) -> GraphResult:
    """Walk relations from a memo (forward, backward or both), with each edge's depth, direction and path."""
    return await relations.graph(
        ctx.state,
        ctx.caller,
        namespace=namespace,
        start_memo_id=start_memo_id,
        direction=direction,
        max_depth=max_depth,
        tag=tag,
        limit=limit,
    )
