"""The sandbox's pure parts, in process: the shaping built-ins, the JSON check, error positions, messages."""

from __future__ import annotations

from typing import Any

import pytest
import starlark as sl

from mcpist.batch._format import format_as as batch_format_as
from mcpist.script._shaping import (
    NestingError,
    ScriptError,
    check_json,
    format_as,
    group_by,
    hash_join,
    index_by,
    pluck,
    sort_by,
    unique,
    where,
)
from mcpist.script._wire import HEADER, decode, encode
from mcpist.script._worker import DIALECT, located

ITEMS: list[dict[str, Any]] = [
    {"id": "a", "status": "open", "due": 3, "owner": {"id": "u1"}},
    {"id": "b", "status": "done", "due": 1, "owner": {"id": "u2"}},
    {"id": "c", "status": "open", "due": 2, "owner": None},
]


def test_where_and_sort_by() -> None:
    assert [x["id"] for x in where(ITEMS, status="open")] == ["a", "c"]
    assert where(ITEMS, status="open", due=2) == [ITEMS[2]]
    assert [x["id"] for x in sort_by(ITEMS, "due")] == ["b", "c", "a"]
    assert [x["id"] for x in sort_by(ITEMS, "due", desc=True)] == ["a", "c", "b"]
    ties = [{"k": 1, "n": i} for i in range(5)]
    assert sort_by(ties, "k", desc=True) == ties  # stable both ways
    with pytest.raises(ScriptError, match="all numbers or all strings, got null, string"):
        sort_by(ITEMS, "owner.id")
    with pytest.raises(ScriptError, match="name at least one field"):
        where(ITEMS)
    with pytest.raises(ScriptError, match="element 1 is number"):
        where([{}, 5], a=1)


def test_pluck_join_group_index_unique() -> None:
    assert pluck(ITEMS[0], "id", "nope") == {"id": "a", "nope": None}
    assert pluck(ITEMS, "id") == [{"id": "a"}, {"id": "b"}, {"id": "c"}]
    users = [{"uid": "u1", "name": "Aiko"}, {"uid": "u1", "name": "Aiko again"}, {"uid": None}]
    left = [{"id": x["id"], "uid": (x["owner"] or {}).get("id")} for x in ITEMS]
    assert hash_join(left, users, "uid") == [
        {"id": "a", "uid": "u1", "name": "Aiko"},
        {"id": "a", "uid": "u1", "name": "Aiko again"},
    ]
    assert hash_join(ITEMS, users, "owner.id", "uid")[0]["name"] == "Aiko"
    with pytest.raises(ScriptError, match="keys must be strings, numbers or booleans, got object"):
        hash_join(ITEMS, ITEMS, "owner")
    assert {k: [x["id"] for x in v] for k, v in group_by(ITEMS, "status").items()} == {
        "open": ["a", "c"],
        "done": ["b"],
    }
    assert set(index_by(ITEMS, "due")) == {"1", "2", "3"}
    with pytest.raises(ScriptError, match="the key of element 2 is null"):
        group_by(ITEMS, "owner.id")
    assert unique([1, "1", 1, [1], [1], {"a": 1, "b": 2}, {"b": 2, "a": 1}]) == [1, "1", [1], {"a": 1, "b": 2}]


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown", "lines"])
@pytest.mark.parametrize(
    "value",
    [ITEMS, [{"a": "x|y\nz"}, {"b": 2}], ["one", None, 3], [[1, 2], [3]], {"a": 1}, []],
    ids=["objects", "ragged", "scalars", "rows", "object", "empty"],
)
def test_format_as_matches_batch(fmt: str, value: Any) -> None:
    assert format_as(value, fmt) == batch_format_as(value, fmt)


def test_format_as_refuses_what_batch_refuses() -> None:
    with pytest.raises(ScriptError, match="unknown format 'xml'"):
        format_as([], "xml")
    with pytest.raises(ScriptError, match="mix objects and non-objects"):
        format_as([{"a": 1}, 2], "csv")


def test_check_json() -> None:
    assert check_json({"a": (1, [2, (3,)]), "b": None}, 10, "v") == {"a": [1, [2, [3]]], "b": None}
    deep: Any = 1
    for _ in range(5):
        deep = [deep]
    assert check_json(deep, 5, "v") == deep
    with pytest.raises(NestingError, match="v nests deeper than 4 levels"):
        check_json(deep, 4, "v")
    with pytest.raises(ScriptError, match="a number key 1"):
        check_json({1: 2}, 5, "the result")
    with pytest.raises(ScriptError, match="holds a set"):
        check_json({"a": {1}}, 5, "the result")


def test_a_deeply_shared_value_is_checked_without_recursion() -> None:
    # 10,000 levels would overflow a recursive walk; this one only counts
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(NestingError):
        check_json(deep, 900, "args")


def test_errors_are_located_and_cleaned() -> None:
    with pytest.raises(sl.StarlarkError) as parse:
        sl.parse("script.star", "def main():\n    x = 1\n    return x +\n", DIALECT)
    where = located(parse.value)
    assert (where["line"], where["column"]) == (3, 15)
    assert where["message"].startswith("Parse error: unexpected new line here")
    module = sl.Module()
    module.add_callable("boom", lambda: (_ for _ in ()).throw(ScriptError("pluck(): name the fields")))
    sl.eval(module, sl.parse("script.star", "def main():\n    return boom()\n", DIALECT), sl.Globals.standard())
    with pytest.raises(sl.StarlarkError) as run:
        module.freeze().call("main")
    assert located(run.value) == {"message": "pluck(): name the fields", "line": 2, "column": 12}


def test_messages_are_framed_json() -> None:
    frame = encode({"op": "call", "calls": [{"module": "memory", "params": {"q": "会議"}}]})
    (size,) = HEADER.unpack(frame[: HEADER.size])
    assert size == len(frame) - HEADER.size
    assert decode(frame[HEADER.size :])["calls"][0]["params"]["q"] == "会議"
    with pytest.raises(ValueError):
        decode(b"[1]")
    with pytest.raises(ValueError):
        encode({"x": float("nan")})
