"""SQLite's vector and keyword search: in-memory indexes per (owner, namespace), consistent with the database.

Every write to an entry's vector takes the next number in `memory_vector_log` inside its own
transaction; SQLite runs one writer at a time, so a committed number is never below one already
seen. Before each search the index reads the log rows above its watermark and applies them,
whichever process wrote them. Small namespaces are searched exactly; a namespace of
`hnsw_threshold` vectors or more also gets an HNSW graph (usearch), built in a worker thread
while exact search carries on, and afterwards used to pick candidates that are re-scored exactly.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from usearch.index import Index

from .keyword_index import KeywordHit, KeywordPartition
from .tables import entries, vector_log

Accept = Callable[[list[int]], Awaitable[set[int]]]
PAGE = 5000


@dataclass
class Hit:
    pk: int
    similarity: float  # cosine
    distance: float  # the metric's distance (cosine distance or L2)


@dataclass
class _Partition:
    dim: int
    keys: NDArray[np.int64] = field(init=False)
    unit: NDArray[np.float32] = field(init=False)
    norms: NDArray[np.float32] = field(init=False)
    size: int = 0
    pos: dict[int, int] = field(default_factory=dict)
    ann: Index | None = None
    building: bool = False
    dirty: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.keys = np.zeros(16, dtype=np.int64)
        self.unit = np.zeros((16, self.dim), dtype=np.float32)
        self.norms = np.zeros(16, dtype=np.float32)

    def put(self, key: int, vec: NDArray[np.float32]) -> None:
        norm = float(np.linalg.norm(vec))
        unit = vec / norm if norm > 0 else vec
        row = self.pos.get(key)
        if row is None:
            if self.size == len(self.keys):
                grow = len(self.keys) * 2
                self.keys = np.resize(self.keys, grow)
                self.unit = np.concatenate([self.unit, np.zeros_like(self.unit)])
                self.norms = np.resize(self.norms, grow)
            row = self.size
            self.size += 1
            self.pos[key] = row
            self.keys[row] = key
        self.unit[row] = unit
        self.norms[row] = norm
        self._touch(key, unit, present=True)

    def drop(self, key: int) -> None:
        row = self.pos.pop(key, None)
        if row is None:
            return
        last = self.size - 1
        if row != last:
            moved = int(self.keys[last])
            self.keys[row] = moved
            self.unit[row] = self.unit[last]
            self.norms[row] = self.norms[last]
            self.pos[moved] = row
        self.size = last
        self._touch(key, None, present=False)

    def _touch(self, key: int, unit: NDArray[np.float32] | None, *, present: bool) -> None:
        if self.building:
            self.dirty.add(key)
        if self.ann is not None:
            if key in self.ann:
                self.ann.remove(key)
            if present and unit is not None:
                self.ann.add(key, unit)


class SqliteVectorIndex:
    def __init__(
        self,
        engine: AsyncEngine,
        *,
        model: str,
        dim: int,
        hnsw_threshold: int,
        ef_search: int,
        logger: logging.Logger,
        task_group: anyio.abc.TaskGroup | None = None,
    ) -> None:
        self._engine = engine
        self.model = model
        self.dim = dim
        self.hnsw_threshold = hnsw_threshold
        self.ef_search = ef_search
        self._logger = logger
        self._tg = task_group
        self._parts: dict[tuple[str, str], _Partition] = {}
        self._where: dict[int, tuple[str, str]] = {}
        self._words: dict[tuple[str, str], KeywordPartition] = {}
        self._word_where: dict[int, tuple[str, str]] = {}
        self._watermark = 0
        self._lock = anyio.Lock()
        self._builds = 0
        self._idle = anyio.Event()
        self._idle.set()

    def __len__(self) -> int:
        return len(self._where)

    async def sync(self, conn: AsyncConnection | None = None) -> None:
        """Apply every logged change above the watermark (from this process or another)."""
        if conn is None:
            # the connection first, the lock second, as callers passing theirs do: the other order
            # deadlocked a full pool (each holder waiting for the lock, its holder for a connection)
            async with self._engine.connect() as own:
                await self.sync(own)
            return
        async with self._lock:
            await self._catch_up(conn)
            self._schedule_builds()

    async def _catch_up(self, conn: AsyncConnection) -> None:
        latest = (await conn.execute(sa.select(sa.func.max(vector_log.c.seq)))).scalar()
        while latest is not None and latest > self._watermark:
            stmt = (
                sa.select(
                    vector_log.c.entry_pk,
                    vector_log.c.seq,
                    entries.c.owner_id,
                    entries.c.namespace,
                    entries.c.embedding,
                    entries.c.embedding_model,
                    entries.c.search_terms,
                )
                .select_from(vector_log.outerjoin(entries, entries.c.pk == vector_log.c.entry_pk))
                .where(vector_log.c.seq > self._watermark)
                .order_by(vector_log.c.seq)
                .limit(PAGE)
            )
            rows = (await conn.execute(stmt)).all()
            if not rows:
                break
            for row in rows:
                self._apply(
                    int(row.entry_pk), row.owner_id, row.namespace, row.embedding, row.embedding_model, row.search_terms
                )
            self._watermark = int(rows[-1].seq)

    def _apply(
        self, pk: int, owner: str | None, ns: str | None, vec: Any, model: str | None, terms: str | None
    ) -> None:
        was = self._word_where.pop(pk, None)
        if was is not None:
            self._words[was].drop(pk)
        if owner is not None and ns is not None and terms is not None:
            words = self._words.get((owner, ns))
            if words is None:
                words = self._words[(owner, ns)] = KeywordPartition()
            words.put(pk, terms.split())
            self._word_where[pk] = (owner, ns)
        old = self._where.pop(pk, None)
        if old is not None:
            self._parts[old].drop(pk)
        if owner is None or ns is None or vec is None or model != self.model or len(vec) != self.dim:
            return
        key = (owner, ns)
        part = self._parts.get(key)
        if part is None:
            part = self._parts[key] = _Partition(self.dim)
        part.put(pk, vec)
        self._where[pk] = key

    def _schedule_builds(self) -> None:
        if self._tg is None:
            return
        for part in self._parts.values():
            if part.size >= self.hnsw_threshold and part.ann is None and not part.building:
                part.building = True
                part.dirty = set()
                if self._builds == 0:
                    self._idle = anyio.Event()
                self._builds += 1
                self._tg.start_soon(self._build, part)

    async def _build(self, part: _Partition) -> None:
        keys = part.keys[: part.size].copy()
        vectors = part.unit[: part.size].copy()

        def build() -> Index:
            index = Index(ndim=self.dim, metric="cos", dtype="f16", connectivity=16, expansion_add=128)
            index.add(keys.astype(np.uint64), vectors, threads=2)
            return index

        try:
            index = await anyio.to_thread.run_sync(build)
            # changes made while the graph was being built are replayed onto it
            for key in part.dirty:
                if key in index:
                    index.remove(key)
                row = part.pos.get(key)
                if row is not None:
                    index.add(key, part.unit[row])
            part.ann = index
            self._logger.info("memory: HNSW graph ready for %d vectors", part.size)
        except Exception:  # the exact search still answers; log why the graph is missing
            self._logger.exception("memory: building the HNSW graph failed")
        finally:
            part.building = False
            part.dirty = set()
            self._builds -= 1
            if self._builds == 0:
                self._idle.set()

    async def wait_idle(self) -> None:
        """Wait until no HNSW graph is being built."""
        await self._idle.wait()

    def keyword(
        self, owner: str, namespace: str, terms: list[str], limit: int, exclude: frozenset[int] = frozenset()
    ) -> list[KeywordHit]:
        """BM25 over one namespace's memos (call `sync` first)."""
        words = self._words.get((owner, namespace))
        return [] if words is None else words.search(terms, limit, exclude)

    def has_graph(self, owner: str, namespace: str) -> bool:
        part = self._parts.get((owner, namespace))
        return part is not None and part.ann is not None

    def vector(self, owner: str, namespace: str, pk: int) -> NDArray[np.float32] | None:
        part = self._parts.get((owner, namespace))
        row = None if part is None else part.pos.get(pk)
        if part is None or row is None:
            return None
        vec: NDArray[np.float32] = part.unit[row] * part.norms[row]
        return vec

    async def nearest(
        self,
        owner: str,
        namespace: str,
        query: NDArray[np.float32],
        k: int,
        *,
        metric: str = "cosine",
        exclude: frozenset[int] = frozenset(),
        minimum_similarity: float | None = None,
        accept: Accept | None = None,
        exact: bool = False,
        by_cosine: bool = True,
    ) -> list[Hit]:
        """The k nearest vectors of one namespace that `accept` lets through, best first.

        `by_cosine` says L2 may rank by cosine (true when every vector has unit length).
        """
        part = self._parts.get((owner, namespace))
        if part is None or part.size == 0 or k <= 0:
            return []
        qnorm = float(np.linalg.norm(query))
        if qnorm == 0:
            return []
        q = (query / qnorm).astype(np.float32)
        l2_exact = metric == "l2" and not by_cosine
        use_graph = part.ann is not None and not exact and not l2_exact
        window = max(4 * k, 40)
        out: list[Hit] = []
        seen: set[int] = set(exclude)
        while True:
            keys, sims, dist = self._rank(part, q, qnorm, window, use_graph, l2_exact, metric)
            batch: list[Hit] = []
            stop = False
            for key, sim, d in zip(keys.tolist(), sims.tolist(), dist.tolist(), strict=True):
                if key in seen:
                    continue
                seen.add(key)
                if minimum_similarity is not None and sim < minimum_similarity:
                    if not l2_exact:
                        stop = True  # ranked by cosine: everything after is lower
                        break
                    continue
                batch.append(Hit(key, sim, d))
            if accept is not None and batch:
                allowed = await accept([h.pk for h in batch])
                batch = [h for h in batch if h.pk in allowed]
            out.extend(batch)
            exhausted = len(keys) >= part.size or window >= part.size
            if len(out) >= k or stop or exhausted:
                break
            window *= 4
            if use_graph and window > 4096:
                use_graph = False  # a very selective filter: finish with an exact scan
        return out[:k]

    def _rank(
        self,
        part: _Partition,
        q: NDArray[np.float32],
        qnorm: float,
        window: int,
        use_graph: bool,
        l2_exact: bool,
        metric: str,
    ) -> tuple[NDArray[np.int64], NDArray[np.float32], NDArray[np.float32]]:
        n = part.size
        window = min(window, n)
        if use_graph and part.ann is not None:
            part.ann.expansion_search = max(self.ef_search, window)  # type: ignore[misc]
            found = part.ann.search(q, window)
            rows = np.array([part.pos[int(key)] for key in found.keys if int(key) in part.pos], dtype=np.int64)
            sims = part.unit[rows] @ q
        else:
            rows = np.arange(n)
            sims = part.unit[:n] @ q  # a view: fancy indexing would copy the whole matrix
        if l2_exact:
            norms = part.norms[rows]
            d2 = np.maximum(norms * norms + qnorm * qnorm - 2 * norms * qnorm * sims, 0)
            order = _top(-d2, window)
            dist = np.sqrt(d2[order])
        else:
            order = _top(sims, window)
            if metric == "l2":
                norms = part.norms[rows[order]]
                dist = np.sqrt(np.maximum(norms * norms + qnorm * qnorm - 2 * norms * qnorm * sims[order], 0))
            else:
                dist = 1 - sims[order]
        rows = rows[order]
        return part.keys[rows], sims[order].astype(np.float32), dist.astype(np.float32)


def _top(scores: NDArray[Any], n: int) -> NDArray[np.int64]:
    """Indices of the n highest scores, highest first."""
    if n >= len(scores):
        return np.argsort(-scores, kind="stable")
    part = np.argpartition(-scores, n)[:n]
    return part[np.argsort(-scores[part], kind="stable")]
