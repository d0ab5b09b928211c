"""Maintenance for the CLI: re-embed after a model switch, export and import a namespace as JSONL.

Each function takes the engine and the module settings, builds what it needs, and reports
progress through `progress(done, total)` so the CLI can draw a bar.

JSONL format (one object per line): a header
`{"type": "header", "format": "mcpist-memory", "version": 1, "namespace": ..., "embedding_model": ...}`,
then `{"type": "memo", "memo_id", "title", "content", "metadata", "created_at", "updated_at", "version"}`
(plus `"embedding"`, a list of floats, when exported with embeddings), then
`{"type": "relation", "source_memo_id", "target_memo_id", "tag", "weight", "reason", "created_at", "updated_at",
"version"}`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.modules import Caller, InvalidArgument

from .analyzer import Analyzer
from .embeddings import Embedder
from .memos import merge_patch, tsvector_literal
from .settings import MemorySettings
from .store import MemoryState, audit, check_namespace, memo_id, now, write_tx
from .tables import entries, relations
from .tools import build_embedder, ensure_pg_index

Progress = Callable[[int, int], None]
FORMAT = "mcpist-memory"


def _noop(done: int, total: int) -> None:
    del done, total


async def reembed(
    engine: AsyncEngine,
    settings: MemorySettings,
    *,
    all_memos: bool = False,
    batch_size: int = 64,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> int:
    """Embed again every memo whose model differs from the configured one (or every memo); returns the count.

    Versions do not change: the memo's content is the same. A memo saved meanwhile is skipped
    (its save already embedded it with the current model).

    Raises:
        Unavailable: the embedding provider failed; memos done so far stay done.
    """
    embedder = embedder or await build_embedder(settings)
    report = progress or _noop
    if engine.dialect.name == "postgresql":
        await ensure_pg_index(MemoryState(engine, settings, embedder, Analyzer(), None))
    where = (
        sa.true()
        if all_memos
        else sa.or_(entries.c.embedding_model.is_(None), entries.c.embedding_model != embedder.model)
    )
    async with engine.connect() as conn:
        total = (await conn.execute(sa.select(sa.func.count()).where(where))).scalar_one()
    done, last = 0, 0
    report(0, total)
    while True:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(entries.c.pk, entries.c.content, entries.c.version)
                    .where(where, entries.c.pk > last)
                    .order_by(entries.c.pk)
                    .limit(batch_size)
                )
            ).all()
        if not rows:
            break
        vectors = await embedder.embed_documents([r.content for r in rows])
        async with write_tx(engine) as conn:
            for r, vec in zip(rows, vectors, strict=True):
                await conn.execute(
                    entries.update()
                    .where(entries.c.pk == r.pk, entries.c.version == r.version)
                    .values(embedding=vec, embedding_model=embedder.model, embedding_dim=int(vec.shape[0]))
                )
        last = rows[-1].pk
        done += len(rows)
        report(min(done, total), total)
    return done


async def export_namespace(
    engine: AsyncEngine,
    settings: MemorySettings,
    *,
    owner_id: str,
    namespace: str,
    out: IO[str],
    include_embeddings: bool = False,
    progress: Progress | None = None,
) -> int:
    """Write one user's namespace as JSONL to `out`; returns the number of memos written."""
    del settings
    report = progress or _noop
    ns = check_namespace(namespace)
    scope = [entries.c.owner_id == owner_id, entries.c.namespace == ns]
    async with engine.connect() as conn:
        total = (await conn.execute(sa.select(sa.func.count()).where(*scope))).scalar_one()
        models = (await conn.execute(sa.select(sa.distinct(entries.c.embedding_model)).where(*scope))).scalars().all()
        header = {
            "type": "header",
            "format": FORMAT,
            "version": 1,
            "namespace": ns,
            "embedding_model": models[0] if len(models) == 1 else None,
            "exported_at": now().isoformat(),
        }
        out.write(json.dumps(header, ensure_ascii=False) + "\n")
        report(0, total)
        done, last = 0, 0
        while True:
            rows = (
                await conn.execute(
                    sa.select(entries).where(*scope, entries.c.pk > last).order_by(entries.c.pk).limit(500)
                )
            ).all()
            if not rows:
                break
            for r in rows:
                line: dict[str, Any] = {
                    "type": "memo",
                    "memo_id": r.id,
                    "title": r.title,
                    "content": r.content,
                    "metadata": r.metadata,
                    "created_at": r.created_at.isoformat(),
                    "updated_at": r.updated_at.isoformat(),
                    "version": r.version,
                }
                if include_embeddings and r.embedding is not None:
                    line["embedding_model"] = r.embedding_model
                    line["embedding"] = [round(float(x), 7) for x in r.embedding]
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
            last = rows[-1].pk
            done += len(rows)
            report(done, total)
        rel_rows = await conn.execute(
            sa.select(relations)
            .where(relations.c.owner_id == owner_id, relations.c.namespace == ns)
            .order_by(relations.c.source_memo_id, relations.c.target_memo_id, relations.c.tag)
        )
        for r in rel_rows:
            out.write(
                json.dumps(
                    {
                        "type": "relation",
                        "source_memo_id": r.source_memo_id,
                        "target_memo_id": r.target_memo_id,
                        "tag": r.tag,
                        "weight": float(r.weight),
                        "reason": r.reason,
                        "created_at": r.created_at.isoformat(),
                        "updated_at": r.updated_at.isoformat(),
                        "version": r.version,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    return done


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    relations: int = 0


def _lines(src: IO[str]) -> Iterable[tuple[int, dict[str, Any]]]:
    for number, text in enumerate(src, start=1):
        if not text.strip():
            continue
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidArgument(f"line {number}: not JSON ({exc.msg})", {"line": number}) from None
        if not isinstance(item, dict) or item.get("type") not in ("header", "memo", "relation"):
            raise InvalidArgument(f"line {number}: not a header, memo or relation", {"line": number})
        yield number, item


async def import_namespace(
    engine: AsyncEngine,
    settings: MemorySettings,
    *,
    owner_id: str,
    src: IO[str],
    namespace: str | None = None,
    actor: str = "cli",
    batch_size: int = 64,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> ImportReport:
    """Read JSONL from `src` into one user's namespace (the file's own, unless `namespace` is given).

    Memos keep their ids: an existing memo with the same id is overwritten (its version grows).
    Embeddings in the file are reused when they come from the configured model.

    Raises:
        InvalidArgument: a line is not valid (nothing from its batch is written).
        Unavailable: the embedding provider failed.
    """
    embedder = embedder or await build_embedder(settings)
    analyzer = Analyzer()
    state = MemoryState(engine, settings, embedder, analyzer, None)
    caller = Caller(user_id=actor)
    report = progress or _noop
    items = list(_lines(src))
    header = next((item for _, item in items if item["type"] == "header"), {})
    ns = check_namespace(namespace or header.get("namespace") or settings.default_namespace)
    memo_lines = [(n, item) for n, item in items if item["type"] == "memo"]
    rel_lines = [(n, item) for n, item in items if item["type"] == "relation"]
    out = ImportReport()
    total = len(memo_lines) + len(rel_lines)
    report(0, total)
    for start in range(0, len(memo_lines), batch_size):
        batch = memo_lines[start : start + batch_size]
        for number, item in batch:
            if not isinstance(item.get("content"), str) or not item["content"].strip():
                raise InvalidArgument(f"line {number}: a memo needs non-empty 'content'", {"line": number})
            if not isinstance(item.get("metadata", {}), dict):
                raise InvalidArgument(f"line {number}: 'metadata' must be an object", {"line": number})
        need = [i for i, (_, item) in enumerate(batch) if item.get("embedding_model") != embedder.model]
        fresh = await embedder.embed_documents([batch[i][1]["content"] for i in need]) if need else None
        vectors: dict[int, Any] = {i: fresh[j] for j, i in enumerate(need)} if fresh is not None else {}
        async with write_tx(engine) as conn:
            for i, (number, item) in enumerate(batch):
                vec = vectors.get(i)
                if vec is None:
                    vec = np.asarray(item["embedding"], dtype=np.float32)
                created = await _upsert(state, conn, caller, owner_id, ns, number, item, vec)
                if created:
                    out.created += 1
                else:
                    out.updated += 1
        report(start + len(batch), total)
    async with write_tx(engine) as conn:
        for number, item in rel_lines:
            source = memo_id(str(item.get("source_memo_id")), f"line {number}: source_memo_id")
            target = memo_id(str(item.get("target_memo_id")), f"line {number}: target_memo_id")
            tag = str(item.get("tag") or "").strip()
            weight = item.get("weight", 1.0)
            if not tag or len(tag) > 64 or not isinstance(weight, int | float) or not 0 <= weight <= 1:
                raise InvalidArgument(
                    f"line {number}: a relation needs a tag (1-64) and a weight 0..1", {"line": number}
                )
            present = (
                await conn.execute(
                    sa.select(sa.func.count()).where(
                        entries.c.owner_id == owner_id, entries.c.namespace == ns, entries.c.id.in_([source, target])
                    )
                )
            ).scalar_one()
            if present != 2 or source == target:
                raise InvalidArgument(f"line {number}: the relation's memos are not in the import", {"line": number})
            key = [
                relations.c.owner_id == owner_id,
                relations.c.namespace == ns,
                relations.c.source_memo_id == source,
                relations.c.target_memo_id == target,
                relations.c.tag == tag,
            ]
            await conn.execute(relations.delete().where(*key))
            at = now()
            await conn.execute(
                relations.insert().values(
                    owner_id=owner_id,
                    namespace=ns,
                    source_memo_id=source,
                    target_memo_id=target,
                    tag=tag,
                    weight=round(float(weight), 2),
                    reason=item.get("reason"),
                    created_at=_when(item.get("created_at")) or at,
                    updated_at=_when(item.get("updated_at")) or at,
                    version=int(item.get("version", 1)),
                )
            )
            out.relations += 1
        await audit(
            conn,
            caller,
            owner=owner_id,
            namespace=ns,
            operation="import",
            target=ns,
            diff={"created": out.created, "updated": out.updated, "relations": out.relations},
        )
    if engine.dialect.name == "postgresql":
        async with engine.begin() as conn:
            await conn.exec_driver_sql("ANALYZE memory_entries")  # so the planner picks the HNSW index
    report(total, total)
    return out


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


async def _upsert(
    state: MemoryState, conn: Any, caller: Caller, owner: str, ns: str, number: int, item: dict[str, Any], vec: Any
) -> bool:
    mid = memo_id(str(item.get("memo_id")), f"line {number}: memo_id") if item.get("memo_id") else None
    title = item.get("title")
    content: str = item["content"]
    metadata = merge_patch({}, item.get("metadata") or {})
    terms = state.analyzer.terms(f"{title}\n{content}" if title else content)
    values: dict[str, Any] = {
        "title": title,
        "content": content,
        "metadata": metadata,
        "embedding": vec,
        "embedding_model": state.embedder.model,
        "embedding_dim": int(vec.shape[0]),
        "search_terms": " ".join(terms),
    }
    if not state.sqlite:
        values["search_tsv"] = sa.cast(sa.literal(tsvector_literal(terms)), entries.c.search_tsv.type)
    row = None
    if mid is not None:
        row = (
            await conn.execute(
                sa.select(entries.c.pk, entries.c.version)
                .where(entries.c.owner_id == owner, entries.c.namespace == ns, entries.c.id == mid)
                .with_for_update()
            )
        ).first()
    at = now()
    if row is None:
        values.update(
            id=mid or str(uuid.uuid4()),
            owner_id=owner,
            namespace=ns,
            version=int(item.get("version", 1)),
            created_at=_when(item.get("created_at")) or at,
            updated_at=_when(item.get("updated_at")) or at,
        )
        await conn.execute(entries.insert().values(**values))
        return True
    values.update(version=row.version + 1, updated_at=at)
    await conn.execute(entries.update().where(entries.c.pk == row.pk).values(**values))
    await audit(
        conn,
        caller,
        owner=owner,
        namespace=ns,
        operation="import.update",
        target=str(mid),
        diff={"version": row.version + 1},
    )
    return False
