"""Relations between memos: tagged, weighted edges with versions, and a bounded graph walk."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from mcpist.modules import Caller, Conflict, InvalidArgument, NotFound

from .models import (
    GraphEdge,
    GraphResult,
    Node,
    Relation,
    RelationDeleteResult,
    RelationListResult,
    RelationSaveResult,
)
from .store import MemoryState, audit, check_namespace, memo_id, now, write_tx
from .tables import entries, relations

Direction = Literal["forward", "backward", "both"]
MAX_TAG = 64
SNIPPET = 160
CHUNK = 500


def _tag(value: str) -> str:
    tag = value.strip()
    if not tag or len(tag) > MAX_TAG:
        raise InvalidArgument(f"'tag' must be 1-{MAX_TAG} characters", {"field": "tag"})
    return tag


def _relation(row: Any) -> Relation:
    return Relation(
        namespace=row.namespace,
        source_memo_id=row.source_memo_id,
        target_memo_id=row.target_memo_id,
        tag=row.tag,
        weight=float(row.weight),
        reason=row.reason,
        created_at=row.created_at,
        updated_at=row.updated_at,
        version=row.version,
    )


def _key(owner: str, ns: str, source: str, target: str, tag: str) -> list[sa.ColumnElement[bool]]:
    return [
        relations.c.owner_id == owner,
        relations.c.namespace == ns,
        relations.c.source_memo_id == source,
        relations.c.target_memo_id == target,
        relations.c.tag == tag,
    ]


async def save(
    state: MemoryState,
    caller: Caller,
    *,
    namespace: str | None,
    source_memo_id: str,
    target_memo_id: str,
    tag: str,
    weight: float | None,
    reason: str | None,
    version: int | None,
) -> RelationSaveResult:
    """Create or update one relation; its version grows only when weight or reason change.

    Raises:
        InvalidArgument: a bad id, tag or weight; a memo related to itself.
        NotFound: either memo is missing, or `version` was given for a relation that does not exist.
        Conflict: `version` is not the stored version, or a concurrent save created it first.
    """
    owner = caller.user_id
    ns = check_namespace(namespace if namespace is not None else state.settings.default_namespace)
    source = memo_id(source_memo_id, "source_memo_id")
    target = memo_id(target_memo_id, "target_memo_id")
    if source == target:
        raise InvalidArgument("a memo cannot be related to itself", {"field": "target_memo_id"})
    tag = _tag(tag)
    if weight is not None and not 0.0 <= weight <= 1.0:
        raise InvalidArgument("'weight' must be between 0 and 1", {"field": "weight"})
    new_weight = None if weight is None else round(weight, 2)
    try:
        async with write_tx(state.engine) as conn:
            found = set(
                (
                    await conn.execute(
                        sa.select(entries.c.id)
                        .where(
                            entries.c.owner_id == owner, entries.c.namespace == ns, entries.c.id.in_([source, target])
                        )
                        .with_for_update(read=True)
                    )
                ).scalars()
            )
            for field, mid in (("source_memo_id", source), ("target_memo_id", target)):
                if mid not in found:
                    raise NotFound(f"memo {mid} ('{field}') does not exist in namespace {ns!r}", {"field": field})
            row = (
                await conn.execute(sa.select(relations).where(*_key(owner, ns, source, target, tag)).with_for_update())
            ).first()
            at = now()
            if row is None:
                if version is not None:
                    raise NotFound("no such relation to update at that version", {"field": "version"})
                values = {
                    "owner_id": owner,
                    "namespace": ns,
                    "source_memo_id": source,
                    "target_memo_id": target,
                    "tag": tag,
                    "weight": 1.0 if new_weight is None else new_weight,
                    "reason": reason,
                    "created_at": at,
                    "updated_at": at,
                    "version": 1,
                }
                await conn.execute(relations.insert().values(**values))
                await audit(
                    conn,
                    caller,
                    owner=owner,
                    namespace=ns,
                    operation="relation.create",
                    target=f"{source}>{target}:{tag}",
                    diff={"weight": {"new": values["weight"]}, "reason": {"new": reason}},
                )
                return RelationSaveResult(
                    **{k: v for k, v in values.items() if k != "owner_id"}, created=True, changed=True
                )
            if version is not None and row.version != version:
                raise Conflict(
                    f"relation is at version {row.version}, not {version}; read it again and retry",
                    {"current_version": row.version},
                )
            diff: dict[str, Any] = {}
            if new_weight is not None and abs(float(row.weight) - new_weight) > 1e-9:
                diff["weight"] = {"old": float(row.weight), "new": new_weight}
            if reason is not None and reason != row.reason:
                diff["reason"] = {"old": row.reason, "new": reason}
            if not diff:
                return RelationSaveResult(**_relation(row).model_dump(), created=False, changed=False)
            changes: dict[str, Any] = {"updated_at": at, "version": row.version + 1}
            if "weight" in diff:
                changes["weight"] = new_weight
            if "reason" in diff:
                changes["reason"] = reason
            await conn.execute(relations.update().where(*_key(owner, ns, source, target, tag)).values(**changes))
            await audit(
                conn,
                caller,
                owner=owner,
                namespace=ns,
                operation="relation.update",
                target=f"{source}>{target}:{tag}",
                diff=diff,
            )
            merged = {**_relation(row).model_dump(), **changes}
            return RelationSaveResult(**merged, created=False, changed=True)
    except IntegrityError:
        raise Conflict("the relation or one of its memos changed concurrently; retry") from None


async def delete(
    state: MemoryState,
    caller: Caller,
    *,
    namespace: str | None,
    source_memo_id: str,
    target_memo_id: str,
    tag: str,
    version: int | None,
) -> RelationDeleteResult:
    """Delete one relation and return what it was.

    Raises:
        InvalidArgument: a bad id or tag.
        NotFound: no such relation.
        Conflict: `version` is not the stored version.
    """
    owner = caller.user_id
    ns = check_namespace(namespace if namespace is not None else state.settings.default_namespace)
    source = memo_id(source_memo_id, "source_memo_id")
    target = memo_id(target_memo_id, "target_memo_id")
    tag = _tag(tag)
    async with write_tx(state.engine) as conn:
        row = (
            await conn.execute(sa.select(relations).where(*_key(owner, ns, source, target, tag)).with_for_update())
        ).first()
        if row is None:
            raise NotFound(f"no relation {source} -> {target} tagged {tag!r} in namespace {ns!r}")
        if version is not None and row.version != version:
            raise Conflict(
                f"relation is at version {row.version}, not {version}; read it again and retry",
                {"current_version": row.version},
            )
        await conn.execute(relations.delete().where(*_key(owner, ns, source, target, tag)))
        snapshot = _relation(row)
        await audit(
            conn,
            caller,
            owner=owner,
            namespace=ns,
            operation="relation.delete",
            target=f"{source}>{target}:{tag}",
            diff={"old": snapshot.model_dump(mode="json")},
        )
    return RelationDeleteResult(deleted=True, relation=snapshot)


async def _nodes(conn: AsyncConnection, owner: str, ns: str, ids: Iterable[str]) -> list[Node]:
    wanted = sorted(set(ids))
    out: list[Node] = []
    for i in range(0, len(wanted), CHUNK):
        rows = await conn.execute(
            sa.select(
                entries.c.id,
                entries.c.title,
                entries.c.content,
                entries.c["metadata"],
                entries.c.updated_at,
                entries.c.version,
            ).where(entries.c.owner_id == owner, entries.c.namespace == ns, entries.c.id.in_(wanted[i : i + CHUNK]))
        )
        out.extend(
            Node(
                memo_id=r.id,
                title=r.title,
                snippet=r.content[:SNIPPET],
                metadata=r.metadata,
                updated_at=r.updated_at,
                version=r.version,
            )
            for r in rows
        )
    return sorted(out, key=lambda n: n.memo_id)


async def list_(
    state: MemoryState,
    caller: Caller,
    *,
    namespace: str | None,
    source_memo_id: str | None,
    target_memo_id: str | None,
    tag: str | None,
    limit: int,
) -> RelationListResult:
    """Relations matching the filters, with the memos they connect.

    Raises:
        InvalidArgument: a bad id or tag.
    """
    owner = caller.user_id
    ns = check_namespace(namespace if namespace is not None else state.settings.default_namespace)
    where = [relations.c.owner_id == owner, relations.c.namespace == ns]
    if source_memo_id is not None:
        where.append(relations.c.source_memo_id == memo_id(source_memo_id, "source_memo_id"))
    if target_memo_id is not None:
        where.append(relations.c.target_memo_id == memo_id(target_memo_id, "target_memo_id"))
    if tag is not None:
        where.append(relations.c.tag == _tag(tag))
    stmt = (
        sa.select(relations)
        .where(*where)
        .order_by(relations.c.source_memo_id, relations.c.target_memo_id, relations.c.tag)
        .limit(limit + 1)
    )
    async with state.engine.connect() as conn:
        rows = (await conn.execute(stmt)).all()
        edges = [_relation(r) for r in rows[:limit]]
        nodes = await _nodes(conn, owner, ns, [m for e in edges for m in (e.source_memo_id, e.target_memo_id)])
    return RelationListResult(edges=edges, nodes=nodes, truncated=len(rows) > limit)


async def graph(
    state: MemoryState,
    caller: Caller,
    *,
    namespace: str | None,
    start_memo_id: str,
    direction: Direction,
    max_depth: int,
    tag: str | None,
    limit: int,
) -> GraphResult:
    """Walk relations breadth-first from one memo, up to `max_depth` hops and `limit` edges.

    Each edge is reported once, at the depth where the walk first meets it; an edge whose far
    end is already on its own path closes a cycle and is not followed.

    Raises:
        InvalidArgument: a bad id or tag.
        NotFound: the start memo does not exist.
    """
    owner = caller.user_id
    ns = check_namespace(namespace if namespace is not None else state.settings.default_namespace)
    start = memo_id(start_memo_id, "start_memo_id")
    tag_value = None if tag is None else _tag(tag)
    edges: list[GraphEdge] = []
    truncated = False
    async with state.engine.connect() as conn:
        exists = (
            await conn.execute(
                sa.select(entries.c.pk).where(
                    entries.c.owner_id == owner, entries.c.namespace == ns, entries.c.id == start
                )
            )
        ).first()
        if exists is None:
            raise NotFound(f"memo {start} does not exist in namespace {ns!r}", {"field": "start_memo_id"})
        visited = {start}
        seen: set[tuple[str, str, str]] = set()
        frontier: list[tuple[str, list[str]]] = [(start, [start])]
        for depth in range(1, max_depth + 1):
            if not frontier or truncated:
                break
            ids = [node for node, _ in frontier]
            out_edges = await _adjacent(conn, owner, ns, ids, "source", tag_value) if direction != "backward" else {}
            in_edges = await _adjacent(conn, owner, ns, ids, "target", tag_value) if direction != "forward" else {}
            nxt: list[tuple[str, list[str]]] = []
            for node, path in frontier:
                steps: list[tuple[Literal["forward", "backward"], Any]] = [
                    *(("forward", r) for r in out_edges.get(node, [])),
                    *(("backward", r) for r in in_edges.get(node, [])),
                ]
                for way, r in steps:
                    key = (r.source_memo_id, r.target_memo_id, r.tag)
                    if key in seen:
                        continue
                    if len(edges) >= limit:
                        truncated = True
                        break
                    seen.add(key)
                    far = r.target_memo_id if way == "forward" else r.source_memo_id
                    cycle = far in path
                    edges.append(
                        GraphEdge(
                            **_relation(r).model_dump(), depth=depth, direction=way, path=[*path, far], cycle=cycle
                        )
                    )
                    if not cycle and far not in visited:
                        visited.add(far)
                        nxt.append((far, [*path, far]))
                if truncated:
                    break
            frontier = nxt
        nodes = await _nodes(
            conn, owner, ns, [start, *(m for e in edges for m in (e.source_memo_id, e.target_memo_id))]
        )
    return GraphResult(
        start_memo_id=start, edges=edges, nodes=nodes, truncated=truncated, cycles=sum(e.cycle for e in edges)
    )


async def _adjacent(
    conn: AsyncConnection, owner: str, ns: str, ids: list[str], side: Literal["source", "target"], tag: str | None
) -> dict[str, list[Any]]:
    col = relations.c.source_memo_id if side == "source" else relations.c.target_memo_id
    out: dict[str, list[Any]] = {}
    for i in range(0, len(ids), CHUNK):
        where = [relations.c.owner_id == owner, relations.c.namespace == ns, col.in_(ids[i : i + CHUNK])]
        if tag is not None:
            where.append(relations.c.tag == tag)
        stmt = (
            sa.select(relations)
            .where(*where)
            .order_by(relations.c.tag, relations.c.source_memo_id, relations.c.target_memo_id)
        )
        for r in await conn.execute(stmt):
            out.setdefault(getattr(r, f"{side}_memo_id"), []).append(r)
    return out
