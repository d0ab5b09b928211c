"""Saving and deleting memos: optimistic versions, row locks, metadata merge, audit."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any, Literal

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from mcpist.errors import ResourceExhausted
from mcpist.modules import Caller, Conflict, InvalidArgument, NotFound

from .filters import check_json
from .models import DeleteResult, SaveResult, SaveWarning
from .search import pg_search_settings
from .store import MemoryState, audit, check_namespace, check_text, memo_id, now, write_tx
from .tables import entries, relations, to_pg_vector

MetadataMode = Literal["merge", "replace"]
MAX_TITLE = 500


def merge_patch(target: Any, patch: Any) -> Any:
    """JSON Merge Patch (RFC 7386): objects merge key by key, null removes a key."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def tsvector_literal(terms: list[str]) -> str:
    # the tsvector input syntax, so PostgreSQL's own parser (locale-bound, blind to Japanese
    # words) never splits our terms; positions stop at the type's limit of 16383
    return " ".join(f"'{term}':{min(i + 1, 16383)}" for i, term in enumerate(terms))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_metadata(value: dict[str, Any] | None, limit: int) -> dict[str, Any] | None:
    if value is None:
        return None
    return check_json(value, "metadata", limit)


def _locked(owner: str, namespace: str, mid: str) -> sa.Select[Any]:
    return (
        sa.select(entries)
        .where(entries.c.owner_id == owner, entries.c.namespace == namespace, entries.c.id == mid)
        .with_for_update()
    )


async def save(
    state: MemoryState,
    caller: Caller,
    *,
    namespace: str,
    content: str,
    metadata: dict[str, Any] | None,
    memo_id_: str | None,
    title: str | None,
    version: int | None,
    metadata_mode: MetadataMode,
) -> SaveResult:
    """Create or update one memo.

    Raises:
        InvalidArgument: empty or oversized content, title or metadata; a bad id.
        NotFound: `version` was given for a memo that does not exist.
        Conflict: `version` is not the stored version, or the memo was created concurrently.
        ResourceExhausted: the namespace holds `max_memos_per_namespace` memos of this user.
        Unavailable: the embedding provider failed; nothing was written.
        DeadlineExceeded: embedding or tokenising did not get done within `cpu_deadline_s`.
    """
    owner = caller.user_id
    namespace = check_namespace(namespace)
    settings = state.settings
    if not content.strip():
        raise InvalidArgument("'content' must not be empty", {"field": "content"})
    if len(content) > settings.max_content_chars:
        raise InvalidArgument(
            f"'content' has {len(content)} characters; the limit is {settings.max_content_chars}",
            {"field": "content", "limit": settings.max_content_chars},
        )
    check_text(content, "content")
    if title is not None and len(title) > MAX_TITLE:
        raise InvalidArgument(f"'title' is longer than {MAX_TITLE} characters", {"field": "title"})
    if title is not None:
        check_text(title, "title")
    metadata = _check_metadata(metadata, settings.max_metadata_bytes)
    mid = memo_id(memo_id_) if memo_id_ is not None else None
    embedder = state.embedder

    before = None
    if mid is not None:
        async with state.engine.connect() as conn:
            before = (
                await conn.execute(
                    sa.select(entries.c.content, entries.c.embedding_model).where(
                        entries.c.owner_id == owner, entries.c.namespace == namespace, entries.c.id == mid
                    )
                )
            ).first()
    # embedding happens before the write lock is taken: a slow or failing provider blocks no writer
    vector: NDArray[np.float32] | None = None
    if before is None or before.content != content or before.embedding_model != embedder.model:
        vector = await state.embed_document(content)
    terms = await state.terms(f"{title}\n{content}" if title else content)

    try:
        async with write_tx(state.engine) as conn:
            row = None if mid is None else (await conn.execute(_locked(owner, namespace, mid))).first()
            if row is None:
                if version is not None:
                    raise NotFound(f"memo {mid} does not exist in namespace {namespace!r}", {"memo_id": mid})
                if vector is None:  # deleted and re-created meanwhile: embed under the lock, rarely
                    vector = await state.embed_document(content)
                await _check_room(state, conn, owner, namespace)
                result = await _insert(
                    state,
                    conn,
                    caller,
                    namespace,
                    mid or str(uuid.uuid4()),
                    title,
                    content,
                    merge_patch({}, metadata or {}),
                    vector,
                    terms,
                )
                created = True
            else:
                if version is not None and row.version != version:
                    raise Conflict(
                        f"memo {mid} is at version {row.version}, not {version}; read it again and retry",
                        {"memo_id": mid, "current_version": row.version},
                    )
                if vector is None and (row.content != content or row.embedding_model != embedder.model):
                    vector = await state.embed_document(content)
                result = await _update(state, conn, caller, row, title, content, metadata, metadata_mode, vector, terms)
                created = False
    except IntegrityError:
        raise Conflict(
            f"memo {mid} was created by a concurrent save; read it again and retry", {"memo_id": mid}
        ) from None

    warnings: list[SaveWarning] = []
    if vector is not None:
        warnings = await _near_duplicates(state, owner, namespace, result["pk"], vector)
    if len(content) > embedder.max_chars:
        warnings.append(
            SaveWarning(
                code="embedding_truncated",
                message=f"only the first {embedder.max_chars} of {len(content)} characters were embedded (what "
                f"{embedder.model} reads): semantic search matches that part; keyword search covers all of it",
                memo_id=result["id"],
            )
        )
    return SaveResult(
        memo_id=result["id"],
        namespace=namespace,
        title=result["title"],
        metadata=result["metadata"],
        created_at=result["created_at"],
        updated_at=result["updated_at"],
        version=result["version"],
        created=created,
        embedding_model=result["embedding_model"],
        warnings=warnings,
    )


async def _check_room(state: MemoryState, conn: AsyncConnection, owner: str, namespace: str) -> None:
    limit = state.settings.max_memos_per_namespace
    held = (
        await conn.execute(
            sa.select(sa.func.count()).where(entries.c.owner_id == owner, entries.c.namespace == namespace)
        )
    ).scalar_one()
    if held >= limit:
        raise ResourceExhausted(
            f"namespace {namespace!r} holds {held} memos, its limit (memory.max_memos_per_namespace); "
            "delete some or save into another namespace",
            {"field": "namespace", "limit": limit},
        )


def _search_columns(state: MemoryState, terms: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {"search_terms": " ".join(terms)}
    if not state.sqlite:
        values["search_tsv"] = sa.cast(sa.literal(tsvector_literal(terms)), entries.c.search_tsv.type)
    return values


async def _insert(
    state: MemoryState,
    conn: AsyncConnection,
    caller: Caller,
    namespace: str,
    mid: str,
    title: str | None,
    content: str,
    metadata: dict[str, Any],
    vector: NDArray[np.float32],
    terms: list[str],
) -> dict[str, Any]:
    at = now()
    values: dict[str, Any] = {
        "id": mid,
        "owner_id": caller.user_id,
        "namespace": namespace,
        "title": title,
        "content": content,
        "metadata": metadata,
        "embedding": vector,
        "embedding_model": state.embedder.model,
        "embedding_dim": int(vector.shape[0]),
        "created_at": at,
        "updated_at": at,
        "version": 1,
        **_search_columns(state, terms),
    }
    pk = (await conn.execute(entries.insert().values(**values).returning(entries.c.pk))).scalar_one()
    diff = {
        "title": {"new": title},
        "metadata": {"new": metadata},
        "content": {"new_chars": len(content), "new_sha256": _digest(content)},
    }
    await audit(conn, caller, owner=caller.user_id, namespace=namespace, operation="create", target=mid, diff=diff)
    return {**values, "pk": pk}


async def _update(
    state: MemoryState,
    conn: AsyncConnection,
    caller: Caller,
    row: Any,
    title: str | None,
    content: str,
    metadata: dict[str, Any] | None,
    mode: MetadataMode,
    vector: NDArray[np.float32] | None,
    terms: list[str],
) -> dict[str, Any]:
    if metadata is None:
        new_meta = row.metadata
    else:
        new_meta = merge_patch(row.metadata, metadata) if mode == "merge" else merge_patch({}, metadata)
    diff: dict[str, Any] = {}
    if title != row.title:
        diff["title"] = {"old": row.title, "new": title}
    if new_meta != row.metadata:
        diff["metadata"] = {"old": row.metadata, "new": new_meta}
    if content != row.content:
        diff["content"] = {
            "old_chars": len(row.content),
            "new_chars": len(content),
            "old_sha256": _digest(row.content),
            "new_sha256": _digest(content),
        }
    current = dict(row._mapping)
    if not diff and vector is None:
        return current  # nothing changed: no new version, nothing to audit
    values: dict[str, Any] = {
        "title": title,
        "content": content,
        "metadata": new_meta,
        "updated_at": now(),
        "version": row.version + 1,
        **_search_columns(state, terms),
    }
    if vector is not None:
        values.update(embedding=vector, embedding_model=state.embedder.model, embedding_dim=int(vector.shape[0]))
        diff.setdefault("embedding", {"model": state.embedder.model})
    done = await conn.execute(
        entries.update().where(entries.c.pk == row.pk, entries.c.version == row.version).values(**values)
    )
    if done.rowcount != 1:  # unreachable under the row lock; kept as the last guard against a lost update
        raise Conflict(f"memo {row.id} changed during the save; retry", {"memo_id": row.id})
    await audit(conn, caller, owner=row.owner_id, namespace=row.namespace, operation="update", target=row.id, diff=diff)
    current.update(values)
    current.pop("search_tsv", None)
    return current


async def _near_duplicates(
    state: MemoryState, owner: str, namespace: str, pk: int, vector: NDArray[np.float32]
) -> list[SaveWarning]:
    threshold = state.duplicate_similarity
    hits: list[tuple[str, float]] = []
    if state.index is not None:
        await state.index.sync()
        found = await state.index.nearest(
            owner, namespace, vector, 1, exclude=frozenset({pk}), minimum_similarity=threshold
        )
        if found:
            async with state.engine.connect() as conn:
                mid = (await conn.execute(sa.select(entries.c.id).where(entries.c.pk == found[0].pk))).scalar()
            if mid is not None:
                hits.append((mid, found[0].similarity))
    else:
        dim = int(vector.shape[0])
        async with state.engine.connect() as conn:
            await pg_search_settings(conn, state.settings.hnsw_ef_search, 1)
            row = (
                await conn.execute(
                    sa.text(
                        f"SELECT id, 1 - (embedding::vector({dim}) <=> CAST(:q AS vector({dim}))) AS sim "  # noqa: S608
                        "FROM memory_entries WHERE owner_id = :owner AND namespace = :ns AND embedding_dim = :dim "
                        "AND embedding_model = :model AND pk <> :pk "
                        f"ORDER BY embedding::vector({dim}) <=> CAST(:q AS vector({dim})) LIMIT 1"
                    ),
                    {
                        "q": to_pg_vector(vector),
                        "owner": owner,
                        "ns": namespace,
                        "dim": dim,
                        "model": state.embedder.model,
                        "pk": pk,
                    },
                )
            ).first()
        if row is not None and row.sim >= threshold:
            hits.append((row.id, float(row.sim)))
    return [
        SaveWarning(
            code="near_duplicate",
            message=f"memo {mid} is nearly the same (cosine {sim:.3f}); nothing was merged",
            memo_id=mid,
            similarity=round(sim, 4),
        )
        for mid, sim in hits
    ]


async def delete(
    state: MemoryState, caller: Caller, *, namespace: str, memo_id_: str, version: int | None
) -> DeleteResult:
    """Delete one memo and, through the foreign keys, its relations.

    Raises:
        InvalidArgument: a bad id or namespace.
        NotFound: no such memo for this user in this namespace.
        Conflict: `version` is not the stored version.
    """
    owner = caller.user_id
    namespace = check_namespace(namespace)
    mid = memo_id(memo_id_)
    async with write_tx(state.engine) as conn:
        row = (await conn.execute(_locked(owner, namespace, mid))).first()
        if row is None:
            raise NotFound(f"memo {mid} does not exist in namespace {namespace!r}", {"memo_id": mid})
        if version is not None and row.version != version:
            raise Conflict(
                f"memo {mid} is at version {row.version}, not {version}; read it again and retry",
                {"memo_id": mid, "current_version": row.version},
            )
        linked = sa.or_(relations.c.source_memo_id == mid, relations.c.target_memo_id == mid)
        count = (
            await conn.execute(
                sa.select(sa.func.count()).where(
                    relations.c.owner_id == owner, relations.c.namespace == namespace, linked
                )
            )
        ).scalar_one()
        await conn.execute(entries.delete().where(entries.c.pk == row.pk))
        diff = {
            "title": {"old": row.title},
            "metadata": {"old": row.metadata},
            "content": {"old_chars": len(row.content), "old_sha256": _digest(row.content)},
            "version": row.version,
            "relations_removed": count,
        }
        await audit(conn, caller, owner=owner, namespace=namespace, operation="delete", target=mid, diff=diff)
    return DeleteResult(deleted=True, memo_id=mid, namespace=namespace, version=row.version, relations_removed=count)
