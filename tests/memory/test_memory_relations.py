"""relation.save / delete / list / graph."""

from __future__ import annotations

import pytest

from conftest import Memory
from mcpist.modules import Conflict, InvalidArgument, NotFound

pytestmark = pytest.mark.anyio


async def _memos(memory: Memory, n: int, ns: str = "default") -> list[str]:
    return [
        (await memory.call("save", namespace=ns, content=f"memo number {i} about topic {i}"))["memo_id"]
        for i in range(n)
    ]


async def test_upsert_bumps_version_only_when_weight_or_reason_change(memory: Memory) -> None:
    a, b = await _memos(memory, 2)
    made = await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="depends_on", weight=0.8)
    assert made["created"] and made["version"] == 1 and made["namespace"] == "default"
    assert made["weight"] == 0.8 and "reason" not in made  # None is left out of the output
    same = await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="depends_on", weight=0.8)
    assert same["version"] == 1 and not same["changed"] and not same["created"]
    changed = await memory.call(
        "relation.save", source_memo_id=a, target_memo_id=b, tag="depends_on", weight=0.456, reason="see §3"
    )
    assert changed["version"] == 2 and changed["weight"] == 0.46 and changed["reason"] == "see §3"
    kept = await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="depends_on", reason="see §3")
    assert kept["version"] == 2 and kept["weight"] == 0.46
    with pytest.raises(Conflict):
        await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="depends_on", weight=0.1, version=1)
    other_tag = await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="cites")
    assert other_tag["created"] and other_tag["weight"] == 1.0


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"tag": "x" * 65}, InvalidArgument),
        ({"tag": "   "}, InvalidArgument),
        ({"weight": 1.5}, InvalidArgument),
        ({"weight": -0.1}, InvalidArgument),
        ({"target_memo_id": "not-a-uuid"}, InvalidArgument),
        ({"target_memo_id": "00000000-0000-0000-0000-000000000000"}, NotFound),
        ({"namespace": "elsewhere"}, NotFound),
        ({"version": 3}, NotFound),
    ],
)
async def test_relation_save_errors(memory: Memory, change: dict[str, object], error: type[Exception]) -> None:
    a, b = await _memos(memory, 2)
    params: dict[str, object] = {"source_memo_id": a, "target_memo_id": b, "tag": "t", **change}
    with pytest.raises(error):
        await memory.call("relation.save", **params)


async def test_self_relation_and_other_users(memory: Memory) -> None:
    a, b = await _memos(memory, 2)
    with pytest.raises(InvalidArgument):
        await memory.call("relation.save", source_memo_id=a, target_memo_id=a, tag="t")
    with pytest.raises(NotFound):
        await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="t", user="u2")


async def test_delete_returns_snapshot_then_not_found(memory: Memory) -> None:
    a, b = await _memos(memory, 2)
    await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="t", weight=0.5, reason="why")
    gone = await memory.call("relation.delete", source_memo_id=a, target_memo_id=b, tag="t")
    assert gone["deleted"] and gone["relation"]["reason"] == "why" and gone["relation"]["weight"] == 0.5
    with pytest.raises(NotFound):
        await memory.call("relation.delete", source_memo_id=a, target_memo_id=b, tag="t")


async def test_relations_go_with_their_memo(memory: Memory) -> None:
    a, b, c = await _memos(memory, 3)
    await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="t")
    await memory.call("relation.save", source_memo_id=c, target_memo_id=a, tag="t")
    await memory.call("relation.save", source_memo_id=b, target_memo_id=c, tag="t")
    gone = await memory.call("delete", namespace="default", memo_id=a)
    assert gone["relations_removed"] == 2
    left = await memory.call("relation.list")
    assert [(e["source_memo_id"], e["target_memo_id"]) for e in left["edges"]] == [(b, c)]


async def test_list_filters_and_returns_nodes(memory: Memory) -> None:
    a, b, c = await _memos(memory, 3)
    await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="x")
    await memory.call("relation.save", source_memo_id=a, target_memo_id=c, tag="y")
    await memory.call("relation.save", source_memo_id=b, target_memo_id=c, tag="x")
    listed = await memory.call("relation.list", source_memo_id=a)
    assert {e["target_memo_id"] for e in listed["edges"]} == {b, c}
    assert {n["memo_id"] for n in listed["nodes"]} == {a, b, c}
    assert listed["nodes"][0]["snippet"].startswith("memo number")
    assert not listed["truncated"]
    assert len((await memory.call("relation.list", tag="x"))["edges"]) == 2
    assert len((await memory.call("relation.list", target_memo_id=c, tag="x"))["edges"]) == 1
    small = await memory.call("relation.list", limit=1)
    assert len(small["edges"]) == 1 and small["truncated"]
    with pytest.raises(InvalidArgument):
        await memory.call("relation.list", limit=501)
    assert (await memory.call("relation.list", user="u2"))["edges"] == []


async def test_graph_walks_with_depth_direction_path_and_cycles(memory: Memory) -> None:
    a, b, c, d = await _memos(memory, 4)
    for s, t in ((a, b), (b, c), (c, a), (c, d)):
        await memory.call("relation.save", source_memo_id=s, target_memo_id=t, tag="next")
    g = await memory.call("relation.graph", start_memo_id=a)
    edges = {(e["source_memo_id"], e["target_memo_id"]): e for e in g["edges"]}
    assert set(edges) == {(a, b), (b, c), (c, a), (c, d)}
    assert edges[(a, b)]["depth"] == 1 and edges[(a, b)]["path"] == [a, b]
    assert edges[(b, c)]["depth"] == 2 and edges[(c, d)]["path"] == [a, b, c, d]
    assert edges[(c, a)]["cycle"] and edges[(c, a)]["path"] == [a, b, c, a]
    assert g["cycles"] == 1 and not g["truncated"]
    assert {n["memo_id"] for n in g["nodes"]} == {a, b, c, d}
    assert all(e["direction"] == "forward" for e in g["edges"])

    shallow = await memory.call("relation.graph", start_memo_id=a, max_depth=1)
    assert [(e["source_memo_id"], e["target_memo_id"]) for e in shallow["edges"]] == [(a, b)]

    back = await memory.call("relation.graph", start_memo_id=d, direction="backward", max_depth=2)
    assert [(e["source_memo_id"], e["target_memo_id"], e["direction"], e["depth"]) for e in back["edges"]] == [
        (c, d, "backward", 1),
        (b, c, "backward", 2),
    ]
    assert back["edges"][1]["path"] == [d, c, b]

    both = await memory.call("relation.graph", start_memo_id=b, direction="both", max_depth=1)
    assert {(e["source_memo_id"], e["target_memo_id"], e["direction"]) for e in both["edges"]} == {
        (b, c, "forward"),
        (a, b, "backward"),
    }
    limited = await memory.call("relation.graph", start_memo_id=a, limit=2)
    assert len(limited["edges"]) == 2 and limited["truncated"]


async def test_graph_tag_filter_and_errors(memory: Memory) -> None:
    a, b, c = await _memos(memory, 3)
    await memory.call("relation.save", source_memo_id=a, target_memo_id=b, tag="x")
    await memory.call("relation.save", source_memo_id=b, target_memo_id=c, tag="y")
    g = await memory.call("relation.graph", start_memo_id=a, tag="x")
    assert [(e["source_memo_id"], e["target_memo_id"]) for e in g["edges"]] == [(a, b)]
    with pytest.raises(NotFound):
        await memory.call("relation.graph", start_memo_id="00000000-0000-0000-0000-000000000000")
    with pytest.raises(InvalidArgument):
        await memory.call("relation.graph", start_memo_id=a, max_depth=11)
    with pytest.raises(InvalidArgument):
        await memory.call("relation.graph", start_memo_id=a, direction="sideways")
