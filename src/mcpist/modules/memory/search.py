"""Search: semantic (vectors), keyword (BM25 / full text), hybrid (reciprocal rank fusion), metadata.

Both halves of a hybrid search fetch `max(3k, 30)` candidates and are fused by reciprocal rank
(score = sum of weight / (60 + rank)), so neither half's score scale matters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray
from sqlalchemy.ext.asyncio import AsyncConnection

from mcpist.modules import Caller, InvalidArgument, NotFound

from . import filters
from .filters import MatchMode
from .models import SearchItem, SearchResult
from .store import MemoryState, check_namespace, check_text, memo_id
from .tables import entries, to_pg_vector

Mode = Literal["hybrid", "semantic", "keyword"]
Metric = Literal["cosine", "l2"]
RRF_K = 60
KEYWORD_WEIGHT = 1.0
# A keyword hit's rank counts in proportion to the cube of the share of query terms it holds:
# a memo that shares one stray word with a cross-language query ("habit" in "morning jogging
# habit") must not outrank the semantic match. Tuned on the retrieval set: MRR@10 0.90 with
# plain RRF, 0.94 with the square, 0.98 with the cube (docs/memory.md).
COVERAGE_POWER = 3


@dataclass
class _Candidate:
    pk: int
    similarity: float | None = None
    distance: float | None = None
    keyword: float | None = None
    coverage: float = 1.0  # share of the query's terms the memo contains
    score: float = 0.0
    matched: list[Literal["semantic", "keyword", "metadata"]] = field(default_factory=list)


@dataclass
class _Query:
    owner: str
    namespace: str
    wanted: dict[str, Any]
    match: MatchMode
    metric: Metric
    threshold: float | None
    exclude: frozenset[int]


async def search(
    state: MemoryState,
    caller: Caller,
    *,
    namespace: str,
    query: str | None,
    metadata_filter: dict[str, Any] | None,
    metadata_match: MatchMode,
    k: int,
    minimum_similarity: float | None,
    pivot_memo_id: str | None,
    distance_metric: Metric,
    exclude_pivot: bool,
    mode: Mode | None,
) -> SearchResult:
    """Rank one namespace's memos.

    Raises:
        InvalidArgument: conflicting, empty or oversized inputs (query with pivot, a threshold with l2 or
            keyword mode, a query over `max_query_chars`, a filter SQL cannot compare).
        NotFound: the pivot memo does not exist.
        Unavailable: the embedding provider failed.
        DeadlineExceeded: embedding or tokenising did not get done within `cpu_deadline_s`.
    """
    namespace = check_namespace(namespace)
    if query is not None and not query.strip():
        raise InvalidArgument("'query' must not be empty", {"field": "query"})
    limit = state.settings.max_query_chars
    if query is not None and len(query) > limit:
        raise InvalidArgument(
            f"'query' has {len(query)} characters; the limit is {limit}", {"field": "query", "limit": limit}
        )
    if query is not None:
        check_text(query, "query")
    if metadata_filter is not None:
        filters.check_json(metadata_filter, "metadata_filter", state.settings.max_metadata_bytes, int64=True)
    if query is not None and pivot_memo_id is not None:
        raise InvalidArgument("give either 'query' or 'pivot_memo_id', not both", {"field": "pivot_memo_id"})
    if minimum_similarity is not None and distance_metric != "cosine":
        raise InvalidArgument(
            "'minimum_similarity' applies only with distance_metric 'cosine'", {"field": "minimum_similarity"}
        )
    if query is None and pivot_memo_id is None and mode is not None:
        raise InvalidArgument(f"mode {mode!r} needs 'query' or 'pivot_memo_id'", {"field": "mode"})
    if pivot_memo_id is not None and mode == "keyword":
        raise InvalidArgument("a pivot search is semantic; mode 'keyword' needs 'query'", {"field": "mode"})
    if mode == "keyword" and minimum_similarity is not None:
        raise InvalidArgument("'minimum_similarity' does not apply to keyword search", {"field": "minimum_similarity"})

    owner = caller.user_id
    embedder = state.embedder
    effective: Literal["hybrid", "semantic", "keyword", "metadata"]
    if query is None and pivot_memo_id is None:
        effective = "metadata"
    elif pivot_memo_id is not None:
        effective = "semantic"
    else:
        effective = mode or "hybrid"
    threshold = None
    if effective in ("semantic", "hybrid") and distance_metric == "cosine":
        threshold = state.minimum_similarity if minimum_similarity is None else minimum_similarity

    vector: NDArray[np.float32] | None = None
    exclude: frozenset[int] = frozenset()
    if pivot_memo_id is not None:
        pid = memo_id(pivot_memo_id, "pivot_memo_id")
        async with state.engine.connect() as conn:
            pivot = (
                await conn.execute(
                    sa.select(entries.c.pk, entries.c.content, entries.c.embedding, entries.c.embedding_model).where(
                        entries.c.owner_id == owner, entries.c.namespace == namespace, entries.c.id == pid
                    )
                )
            ).first()
        if pivot is None:
            raise NotFound(f"pivot memo {pid} does not exist in namespace {namespace!r}", {"memo_id": pid})
        vector = pivot.embedding
        if vector is None or pivot.embedding_model != embedder.model:
            vector = await state.embed_document(pivot.content)
        if exclude_pivot:
            exclude = frozenset({int(pivot.pk)})
    elif effective in ("semantic", "hybrid") and query is not None:
        vector = await state.embed_query(query)

    q = _Query(owner, namespace, metadata_filter or {}, metadata_match, distance_metric, threshold, exclude)
    terms = await state.query_terms(query) if effective in ("keyword", "hybrid") and query else []
    # one pooled connection for every query of this search: each checkout and its reset cost
    # round trips (a thread hop each with aiosqlite)
    async with state.engine.connect() as conn:
        if state.index is not None and effective != "metadata":
            await state.index.sync(conn)
        if effective == "metadata":
            cands = await _metadata_only(state, conn, q, k)
        else:
            depth = k if effective != "hybrid" else max(3 * k, 30)
            semantic = await _semantic(state, conn, q, vector, depth) if vector is not None else []
            keyword = await _keyword(state, conn, q, terms, depth) if terms else []
            cands = _fuse(effective, semantic, keyword, distance_metric, k)
        items = await _items(state, conn, cands, vector, distance_metric)
    return SearchResult(items=items, mode=effective, minimum_similarity=threshold, embedding_model=embedder.model)


def _fuse(mode: str, semantic: list[_Candidate], keyword: list[_Candidate], metric: Metric, k: int) -> list[_Candidate]:
    if mode == "semantic":
        for c in semantic:
            c.score = c.similarity if metric == "cosine" else 1.0 / (1.0 + (c.distance or 0.0))  # type: ignore[assignment]
        return semantic[:k]
    if mode == "keyword":
        for c in keyword:
            c.score = c.keyword or 0.0
        return keyword[:k]
    merged: dict[int, _Candidate] = {}
    for rank, c in enumerate(semantic, start=1):
        c.score = 1.0 / (RRF_K + rank)
        merged[c.pk] = c
    for rank, c in enumerate(keyword, start=1):
        share = KEYWORD_WEIGHT * c.coverage**COVERAGE_POWER / (RRF_K + rank)
        hit = merged.get(c.pk)
        if hit is None:
            c.score = share
            merged[c.pk] = c
        else:
            hit.score += share
            hit.keyword = c.keyword
            hit.matched.append("keyword")
    return sorted(merged.values(), key=lambda c: (-c.score, c.pk))[:k]


async def _accept(state: MemoryState, conn: AsyncConnection, q: _Query, pks: list[int]) -> set[int]:
    clause = filters.sql_clause(state.engine.dialect.name, q.wanted, q.match)
    rows = (
        await conn.execute(sa.select(entries.c.pk, entries.c["metadata"]).where(entries.c.pk.in_(pks), clause))
    ).all()
    return {int(r.pk) for r in rows if filters.matches(r.metadata, q.wanted, q.match)}


async def _semantic(
    state: MemoryState, conn: AsyncConnection, q: _Query, vector: NDArray[np.float32], n: int
) -> list[_Candidate]:
    embedder = state.embedder
    if state.index is not None:

        async def accept(pks: list[int]) -> set[int]:
            return await _accept(state, conn, q, pks)

        hits = await state.index.nearest(
            q.owner,
            q.namespace,
            vector,
            n,
            metric=q.metric,
            exclude=q.exclude,
            minimum_similarity=q.threshold,
            accept=accept if q.wanted else None,
            by_cosine=embedder.normalized,
        )
        return [_Candidate(h.pk, h.similarity, h.distance, matched=["semantic"]) for h in hits]

    dim = int(vector.shape[0])
    col = f"embedding::vector({dim})"
    qv = f"CAST(:q AS vector({dim}))"
    op = "<->" if q.metric == "l2" and not embedder.normalized else "<=>"
    where: list[Any] = [
        entries.c.owner_id == q.owner,
        entries.c.namespace == q.namespace,
        entries.c.embedding_model == embedder.model,
        sa.text(f"embedding_dim = {dim}"),  # a literal, so the partial HNSW index applies
        filters.sql_clause("postgresql", q.wanted, q.match),
    ]
    if q.exclude:
        where.append(entries.c.pk.not_in(sorted(q.exclude)))
    # as on SQLite, a wider candidate list (the graph's answers are exact distances) lifts
    # recall@10 from 0.92 to above 0.95 at 100k memos
    window = max(4 * n, 40)
    stmt = (
        sa.select(
            entries.c.pk, entries.c["metadata"], sa.text(f"{col} {op} {qv} AS d").bindparams(q=to_pg_vector(vector))
        )
        .where(*where)
        .order_by(sa.text("d"))
        .limit(window)
    )
    out: list[_Candidate] = []
    await pg_search_settings(conn, state.settings.hnsw_ef_search, window)
    rows = (await conn.execute(stmt)).all()
    for r in rows:
        if q.wanted and not filters.matches(r.metadata, q.wanted, q.match):
            continue
        d = float(r.d)
        sim = 1.0 - d if op == "<=>" else None
        if q.threshold is not None and sim is not None and sim < q.threshold:
            break
        if q.metric == "l2" and sim is not None:
            d = float(np.sqrt(max(2.0 - 2.0 * sim, 0.0)))  # unit vectors: L2 follows from the cosine
        out.append(_Candidate(int(r.pk), sim, d, matched=["semantic"]))
    return out[:n]


async def pg_search_settings(conn: AsyncConnection, ef: int, n: int) -> None:
    # strict_order keeps scanning the graph until enough rows pass the WHERE clause
    await conn.exec_driver_sql(f"SET LOCAL hnsw.ef_search = {max(int(ef), min(int(n), 1000))}")
    await conn.exec_driver_sql("SET LOCAL hnsw.iterative_scan = strict_order")
    # The planner prices sequential and bitmap scans without the cost of reading each TOASTed
    # 2 KB vector: at 10k memos it chose them (90 ms, 29 ms) over the HNSW index (1.4 ms). A plain
    # (owner, namespace) btree scan plus an exact sort stays possible, and wins for small namespaces.
    await conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
    await conn.exec_driver_sql("SET LOCAL enable_bitmapscan = off")


async def _keyword(state: MemoryState, conn: AsyncConnection, q: _Query, terms: list[str], n: int) -> list[_Candidate]:
    if state.index is not None:
        return await _keyword_memory(state, conn, q, terms, n)
    clause = filters.sql_clause("postgresql", q.wanted, q.match)
    base = [entries.c.owner_id == q.owner, entries.c.namespace == q.namespace, clause]
    tsq = " | ".join(f"'{t}'" for t in terms)
    rank = sa.func.ts_rank(entries.c.search_tsv, sa.text("CAST(:tq AS tsquery)").bindparams(tq=tsq))
    stmt = (
        sa.select(entries.c.pk, entries.c["metadata"], entries.c.search_terms, rank.label("s"))
        .where(entries.c.search_tsv.op("@@")(sa.text("CAST(:tq2 AS tsquery)").bindparams(tq2=tsq)), *base)
        .order_by(sa.desc(sa.literal_column("s")), entries.c.pk)
    )
    if q.exclude:
        stmt = stmt.where(entries.c.pk.not_in(sorted(q.exclude)))
    limit = n
    while True:
        rows = (await conn.execute(stmt.limit(limit))).all()
        wanted = set(terms)
        out = [
            _Candidate(
                int(r.pk),
                keyword=float(r.s),
                coverage=len(wanted & set(r.search_terms.split())) / len(wanted),
                matched=["keyword"],
            )
            for r in rows
            if not q.wanted or filters.matches(r.metadata, q.wanted, q.match)
        ]
        if len(out) >= n or len(rows) < limit:
            return out[:n]
        limit *= 4


async def _keyword_memory(
    state: MemoryState, conn: AsyncConnection, q: _Query, terms: list[str], n: int
) -> list[_Candidate]:
    assert state.index is not None
    limit = max(4 * n, 40) if q.wanted else n
    while True:
        hits = state.index.keyword(q.owner, q.namespace, terms, limit, q.exclude)
        allowed = await _accept(state, conn, q, [h.pk for h in hits]) if q.wanted and hits else None
        out = [
            _Candidate(h.pk, keyword=h.score, coverage=h.coverage, matched=["keyword"])
            for h in hits
            if allowed is None or h.pk in allowed
        ]
        if len(out) >= n or len(hits) < limit:
            return out[:n]
        limit *= 4


async def _metadata_only(state: MemoryState, conn: AsyncConnection, q: _Query, k: int) -> list[_Candidate]:
    clause = filters.sql_clause(state.engine.dialect.name, q.wanted, q.match)
    stmt = (
        sa.select(entries.c.pk, entries.c["metadata"])
        .where(entries.c.owner_id == q.owner, entries.c.namespace == q.namespace, clause)
        .order_by(entries.c.updated_at.desc(), entries.c.pk.desc())
    )
    out: list[_Candidate] = []
    offset, page = 0, max(4 * k, 100)
    while len(out) < k:
        rows = (await conn.execute(stmt.offset(offset).limit(page))).all()
        for r in rows:
            if filters.matches(r.metadata, q.wanted, q.match):
                out.append(_Candidate(int(r.pk), score=0.0, matched=["metadata"]))
        if len(rows) < page:
            break
        offset += page
    return out[:k]


async def _items(
    state: MemoryState,
    conn: AsyncConnection,
    cands: list[_Candidate],
    vector: NDArray[np.float32] | None,
    metric: Metric,
) -> list[SearchItem]:
    if not cands:
        return []
    cols = [
        entries.c.pk,
        entries.c.id,
        entries.c.title,
        entries.c.content,
        entries.c["metadata"],
        entries.c.created_at,
        entries.c.updated_at,
        entries.c.version,
        entries.c.embedding,
        entries.c.embedding_model,
    ]
    rows = {
        int(r.pk): r
        for r in (await conn.execute(sa.select(*cols).where(entries.c.pk.in_([c.pk for c in cands])))).all()
    }
    items: list[SearchItem] = []
    for c in cands:
        r = rows.get(c.pk)
        if r is None:
            continue  # deleted since it was ranked
        sim, dist = c.similarity, c.distance
        if vector is not None and r.embedding is not None and r.embedding_model == state.embedder.model:
            e = np.asarray(r.embedding, dtype=np.float32)
            denom = float(np.linalg.norm(e) * np.linalg.norm(vector)) or 1.0
            sim = float(e @ vector) / denom
            if metric == "l2":
                dist = float(np.linalg.norm(e - vector))
        items.append(
            SearchItem(
                memo_id=r.id,
                title=r.title,
                content=r.content,
                score=round(float(c.score), 6),
                similarity=None if sim is None else round(sim, 6),
                distance=None if dist is None or metric != "l2" else round(dist, 6),
                matched=c.matched,
                metadata=r.metadata,
                created_at=r.created_at,
                updated_at=r.updated_at,
                version=r.version,
            )
        )
    return items
