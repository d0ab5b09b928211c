"""`${...}` expressions: custom functions, seed 002's operations, substitution and bounds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpist.batch import BatchLimits, Task, run_batch
from mcpist.batch._expr import EvaluationError, compile_expression

ITEMS = [
    {"id": "p1", "title": "会議メモ", "status": "open", "due": 3, "owner": "u1"},
    {"id": "p2", "title": "Spec | v2", "status": "done", "due": 1, "owner": "u2"},
    {"id": "p3", "title": "Plan\nQ3", "status": "open", "due": 2, "owner": "u1"},
    {"id": "p4", "title": "Loose", "status": "open", "due": 3, "owner": None},
]
USERS = [{"id": "u1", "name": "Aiko"}, {"id": "u2", "name": "Ben"}, {"id": "u3", "name": "Cy"}]
OUTPUTS: dict[str, Any] = {"s": {"items": ITEMS}, "u": {"users": USERS}}


def ev(source: str, outputs: dict[str, Any] | None = None, max_cost: int = 1_000_000) -> Any:
    return compile_expression(source, 500).evaluate(OUTPUTS if outputs is None else outputs, max_cost)


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["id"] for row in rows]


# seed 002's deterministic operations, written in JMESPath


def test_where() -> None:
    assert ids(ev("s.items[?status == 'open']")) == ["p1", "p3", "p4"]
    assert ids(ev("s.items[?status == 'open' && due > `2`]")) == ["p1", "p4"]


def test_sort_by_ascending_and_descending_are_stable() -> None:
    assert ids(ev("sort_by(s.items, &due)")) == ["p2", "p3", "p1", "p4"]
    assert ids(ev("sort_by_desc(s.items, &due)")) == ["p1", "p4", "p3", "p2"]
    assert [r["title"] for r in ev("sort_by_desc(s.items, 'title')")] == ["会議メモ", "Spec | v2", "Plan\nQ3", "Loose"]
    assert ids(ev("sort_by(s.items, 'due')")) == ["p2", "p3", "p1", "p4"]


def test_sorting_refuses_mixed_or_null_keys() -> None:
    with pytest.raises(EvaluationError, match=r"sort_by_desc\(\): sort keys must be all numbers or all strings"):
        ev("sort_by_desc(s.items, &owner)")
    with pytest.raises(EvaluationError, match="sort keys"):
        ev('sort_by(`[{"k": 1}, {"k": "a"}]`, &k)')
    assert ev("sort_by_desc(`[]`, &k)") == []


def test_pluck() -> None:
    assert ev("pluck(s.items[:2], 'id', 'status')") == [{"id": "p1", "status": "open"}, {"id": "p2", "status": "done"}]
    assert ev("pluck(s.items[0], 'id', 'nope')") == {"id": "p1", "nope": None}
    with pytest.raises(EvaluationError, match=r"pluck\(\): element 1 is number, not an object"):
        ev("pluck(`[{\"a\": 1}, 2]`, 'a')")


def test_hash_join_is_an_inner_join_merging_objects() -> None:
    joined = ev("hash_join(s.items, u.users, 'owner', 'id')")
    # p4 has a null owner and u3 owns nothing: both drop out, as in an SQL inner join
    assert [(r["title"], r["name"]) for r in joined] == [
        ("会議メモ", "Aiko"),
        ("Spec | v2", "Ben"),
        ("Plan\nQ3", "Aiko"),
    ]
    assert joined[0]["id"] == "u1"  # on a clash the right side wins


def test_hash_join_with_one_key_expression_keys_and_repeated_matches() -> None:
    left = [{"k": 1, "a": "x"}, {"k": 2, "a": "y"}]
    right = [{"k": 1, "b": "p"}, {"k": 1, "b": "q"}, {"k": 1.0, "b": "r"}, {"k": True, "b": "s"}]
    out = ev("hash_join(l, r, 'k')", {"l": left, "r": right})
    assert out == [{"k": 1, "a": "x", "b": "p"}, {"k": 1, "a": "x", "b": "q"}, {"k": 1.0, "a": "x", "b": "r"}]
    nested = ev("hash_join(s.items, u.users, &owner, &id)")
    assert len(nested) == 3


def test_hash_join_refuses_non_objects_and_composite_keys() -> None:
    with pytest.raises(EvaluationError, match=r"right element 0 is string"):
        ev("hash_join(s.items, `[\"u1\"]`, 'owner', 'id')")
    with pytest.raises(EvaluationError, match="join keys must be strings, numbers or booleans, got array"):
        ev('hash_join(`[{"k": [1]}]`, `[{"k": [1]}]`, \'k\')')
    with pytest.raises(EvaluationError, match="fourth argument"):
        ev("hash_join(s.items, u.users, 'owner', `1`)")


def test_format_as_json_keeps_non_ascii() -> None:
    assert ev("format_as(pluck(s.items[:1], 'id', 'title'), 'json')") == '[{"id":"p1","title":"会議メモ"}]'


def test_format_as_csv() -> None:
    rows = [{"id": 1, "name": "a,b"}, {"id": 2, "tags": ["x"], "ok": True, "name": None}]
    assert ev("format_as(r, 'csv')", {"r": rows}) == 'id,name,tags,ok\n1,"a,b",,\n2,,"[""x""]",true\n'
    assert ev('format_as(`[[1, "a"], "b"]`, \'csv\')') == "1,a\nb\n"


def test_format_as_markdown_table() -> None:
    table = ev("format_as(pluck(s.items[:3], 'id', 'title'), 'markdown')")
    assert table == "| id | title |\n|---|---|\n| p1 | 会議メモ |\n| p2 | Spec \\| v2 |\n| p3 | Plan<br>Q3 |"
    assert ev("format_as(s.items[].id, 'markdown')") == "| value |\n|---|\n| p1 |\n| p2 |\n| p3 |\n| p4 |"
    assert ev("format_as(`[]`, 'markdown')") == ""
    assert ev("format_as(s.items[0].{a: id}, 'markdown')") == "| a |\n|---|\n| p1 |"


def test_format_as_lines() -> None:
    assert ev("format_as(s.items[].owner, 'lines')") == "u1\nu2\nu1"  # the projection drops p4's null
    assert ev('format_as(`[1, {"a": 2}, "x"]`, \'lines\')') == '1\n{"a":2}\nx'
    assert ev("format_as('solo', 'lines')") == "solo"


def test_format_as_refuses_unknown_formats_at_run_time_and_mixed_rows() -> None:
    with pytest.raises(EvaluationError, match="unknown format 'xml'"):
        ev("format_as(s.items, f)", {"s": {"items": []}, "f": "xml"})
    with pytest.raises(EvaluationError, match="mix objects and non-objects"):
        ev("format_as(`[{\"a\": 1}, 2]`, 'csv')")


def test_unique_keeps_first_occurrences_in_order() -> None:
    assert ev("unique(s.items[].status)") == ["open", "done"]
    assert ev('unique(`[{"a": 1, "b": 2}, {"b": 2, "a": 1}, 1, true, "1"]`)') == [{"a": 1, "b": 2}, 1, True, "1"]


def test_group_by_and_index_by() -> None:
    groups = ev("group_by(s.items, &status)")
    assert {k: ids(v) for k, v in groups.items()} == {"open": ["p1", "p3", "p4"], "done": ["p2"]}
    assert list(ev("group_by(s.items, 'due')")) == ["3", "1", "2"]
    assert ev("index_by(u.users, 'id').u2.name") == "Ben"
    assert ev("keys(group_by(s.items, &(owner || 'none')))") == ["u1", "u2", "none"]
    with pytest.raises(EvaluationError, match=r"group_by\(\): the key of element 3 is null"):
        ev("group_by(s.items, &owner)")


def test_operations_chain() -> None:
    csv = ev("format_as(pluck(sort_by_desc(s.items[?status == 'open'], &due), 'title', 'due'), 'csv')")
    assert csv == 'title,due\n会議メモ,3\nLoose,3\n"Plan\nQ3",2\n'


def test_references_are_the_fields_read_from_the_root() -> None:
    cases = {
        "search.results[0].id": {"search"},
        "sort_by(search.results, &created_at)": {"search"},
        "a[?b.c == x].d | [0].e": {"a"},
        "{x: a.b, y: c[0]}": {"a", "c"},
        "map(&name, users)": {"users"},
        "hash_join(l.rows, r.rows, 'id')": {"l", "r"},
        "a || b": {"a", "b"},
        "`[1]`": set(),
        "@": set(),
    }
    for source, refs in cases.items():
        assert compile_expression(source, 500).refs == refs, source


def test_evaluation_cost_is_bounded() -> None:
    doubling = "s" + " | [@, @]" * 12
    assert len(ev(doubling + " | [][][][][][][][][][][]")) == 4096  # within budget it works
    with pytest.raises(EvaluationError, match="cost limit of 10000"):
        ev(doubling + " | to_string(@)", max_cost=10_000)
    with pytest.raises(EvaluationError, match="cost limit"):
        ev(doubling + " | [][][][][][][][][][][]", max_cost=1_000)
    # Unbounded, this would materialise 2**40 references; the budget stops it at once.
    with pytest.raises(EvaluationError, match="cost limit"):
        ev("s" + " | [@, @]" * 40 + " | to_string(@)")
    with pytest.raises(EvaluationError, match="cost limit"):
        ev("s" + " | [@, @]" * 40 + " | @ == @")


def test_hash_join_output_is_charged_per_pair() -> None:
    rows = [{"k": 1, "v": i} for i in range(300)]
    assert len(ev("hash_join(a, a, 'k')", {"a": rows[:30]})) == 900
    with pytest.raises(EvaluationError, match="cost limit"):
        ev("hash_join(a, a, 'k')", {"a": rows}, max_cost=200_000)


# substitution, through the public entry point


async def resolve(params: dict[str, Any], outputs: dict[str, Any] | None = None) -> Any:
    """The params the runner receives for a task that reads the given outputs."""
    outputs = OUTPUTS if outputs is None else outputs
    received: dict[str, Any] = {}

    async def runner(task: Task, resolved: dict[str, Any]) -> Any:
        if task.id == "target":
            received.update(resolved)
            return None
        return outputs[task.id]

    lines: list[dict[str, Any]] = [{"id": name, "module": "m", "tool": "t"} for name in outputs]
    lines.append({"id": "target", "module": "m", "tool": "t", "params": params, "after": list(outputs)})
    result = await run_batch("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), runner)
    assert not result.failed, result.to_dict()
    return received


@pytest.mark.anyio
async def test_a_whole_string_reference_is_replaced_by_the_raw_value() -> None:
    got = await resolve(
        {
            "list": "${s.items[:2].id}",
            "object": "${u.users[0]}",
            "number": "${s.items[0].due}",
            "bool": "${contains(s.items[].status, 'done')}",
            "text": "${s.items[0].title}",
            "nested": {"deep": ["${length(s.items)}", {"x": "${u.users[-1].name}"}]},
        }
    )
    assert got == {
        "list": ["p1", "p2"],
        "object": {"id": "u1", "name": "Aiko"},
        "number": 3,
        "bool": True,
        "text": "会議メモ",
        "nested": {"deep": [4, {"x": "Cy"}]},
    }


@pytest.mark.anyio
async def test_an_embedded_reference_is_interpolated() -> None:
    got = await resolve(
        {
            "s": "件名: ${s.items[0].title} (due ${s.items[0].due}), ids=${s.items[:2].id}",
            "two": "${u.users[0].name}${u.users[1].name}",
            "padded": " ${s.items[0].due}",
            "flag": "done=${contains(s.items[].status, 'done')} obj=${u.users[0]}",
        }
    )
    assert got == {
        "s": '件名: 会議メモ (due 3), ids=["p1","p2"]',
        "two": "AikoBen",
        "padded": " 3",
        "flag": 'done=true obj={"id":"u1","name":"Aiko"}',
    }


@pytest.mark.anyio
async def test_escapes_and_plain_dollars() -> None:
    got = await resolve(
        {
            "escaped": "$${s.items}",
            "mixed": "$${literal} and ${u.users[0].name} cost $5 $",
            "japanese": "こんにちは、${u.users[1].name}さん。$${そのまま}",
        }
    )
    assert got == {
        "escaped": "${s.items}",
        "mixed": "${literal} and Aiko cost $5 $",
        "japanese": "こんにちは、Benさん。${そのまま}",
    }


@pytest.mark.anyio
async def test_keys_are_not_templates() -> None:
    assert await resolve({"${s.items}": "k"}) == {"${s.items}": "k"}


@pytest.mark.anyio
async def test_resolved_params_are_bounded_by_the_result_size_limit() -> None:
    calls: list[str] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        calls.append(task.id)
        return "x" * 400

    text = "\n".join(
        [
            '{"id":"a","module":"m","tool":"t"}',
            '{"id":"b","module":"m","tool":"t","after":"a","params":{"x":["${a}","${a}","${a}"]}}',
            '{"id":"c","module":"m","tool":"t","after":"a","params":{"x":"${a}${a}${a}"}}',
            '{"id":"d","module":"m","tool":"t","after":"a","params":{"x":"${a}${a}"}}',
        ]
    )
    result = await run_batch(text, runner, BatchLimits(max_result_bytes=1000))
    assert set(result.failed) == {"b", "c"}
    assert "grow past 1000 bytes" in result.failed["b"].message
    assert result.failed["c"].data == {"field": "params.x", "expression": "a"}
    assert sorted(calls) == ["a", "d"]
