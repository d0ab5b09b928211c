"""Static validation: everything refused here is refused before any task runs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpist.batch import BatchLimits, Task, parse_batch, run_batch
from mcpist.errors import InvalidArgument, MCPistError, NotFound


def task(id: str = "a", **fields: Any) -> dict[str, Any]:
    return {"id": id, "module": "m", "tool": "t", **fields}


def jsonl(*tasks: dict[str, Any] | str) -> str:
    return "\n".join(t if isinstance(t, str) else json.dumps(t, ensure_ascii=False) for t in tasks)


async def refused(text: str, limits: BatchLimits | None = None, precheck: Any = None) -> MCPistError:
    """Run the batch, expecting a refusal and no call to the runner."""
    calls: list[str] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        calls.append(task.id)
        return {}

    with pytest.raises(MCPistError) as info:
        await run_batch(text, runner, limits or BatchLimits(), precheck)
    assert calls == []
    return info.value


# (batch, line, field, words the message must contain)
REFUSALS: list[tuple[str, int | None, str | None, str]] = [
    ("", None, "tasks", "empty"),
    ("\n   \n\t\n", None, "tasks", "empty"),
    (jsonl(task("a"), '{"id": "b",'), 2, None, "invalid JSON"),
    (jsonl('[{"id": "a"}]'), 1, None, "must be a JSON object"),
    (jsonl('{"id": "a", "id": "b", "module": "m", "tool": "t"}'), 1, None, "duplicate key 'id'"),
    (jsonl('{"id": "a", "module": "m", "tool": "t", "params": {"n": NaN}}'), 1, None, "NaN is not JSON"),
    (
        jsonl(task("a", params={"q": 1, "x": {"k": 1}}), '{"id":"b","module":"m","tool":"t","params":{"k":1,"k":2}}'),
        2,
        None,
        "duplicate key 'k'",
    ),
    (jsonl({"module": "m", "tool": "t"}), 1, "id", "missing"),
    (jsonl({"id": "a", "tool": "t"}), 1, "module", "missing"),
    (jsonl({"id": "a", "module": "m"}), 1, "tool", "missing"),
    (jsonl({"id": 7, "module": "m", "tool": "t"}), 1, "id", "non-empty string"),
    (jsonl(task("1abc")), 1, "id", "not a valid id"),
    (jsonl(task("a-b")), 1, "id", "not a valid id"),
    (jsonl(task("x" * 65)), 1, "id", "not a valid id"),
    (jsonl(task("検索")), 1, "id", "not a valid id"),
    (jsonl(task("a", module="")), 1, "module", "non-empty string"),
    (jsonl(task("a", tool=["t"])), 1, "tool", "non-empty string"),
    (jsonl(task("a", params=["q"])), 1, "params", "must be an object"),
    (jsonl(task("a", params="[1]")), 1, "params", "must be an object"),
    (jsonl(task("a", after=3)), 1, "after", "task id or a list"),
    (jsonl(task("b"), task("a", after=["b", 3])), 2, "after", "task id or a list"),
    (jsonl(task("a", output="yes")), 1, "output", "true or false"),
    (jsonl(task("a", output=1)), 1, "output", "true or false"),
    (jsonl(task("a", account=5)), 1, "account", "non-empty string"),
    (jsonl(task("a", account="")), 1, "account", "non-empty string"),
    (jsonl(task("a", ouput=True)), 1, "ouput", "unknown field"),
    (jsonl(task("a"), task("b"), task("a")), 3, "id", "duplicate id 'a' (first on line 1)"),
    (jsonl(task("search"), task("b", after="serch")), 2, "after", "unknown task id 'serch'; did you mean 'search'?"),
    (jsonl(task("a"), task("b", params={"x": "${a.id}"})), 2, "params.x", "reads task 'a', which is not in"),
    (jsonl(task("a"), task("c"), task("b", after="a", params={"x": ["${c}"]})), 3, "params.x[0]", "reads task 'c'"),
    (jsonl(task("a"), task("b", after="a", params={"x": "${sort_by(c.items, &n)}"})), 2, "params.x", "task 'c'"),
    (jsonl(task("a", after="b"), task("b", after="a")), 1, "after", "dependency cycle a -> b -> a"),
    (jsonl(task("a", after="a")), 1, "after", "dependency cycle a -> a"),
    (
        jsonl(task("c", after="a"), task("a", after="b"), task("b", after=["x", "c"]), task("x")),
        1,
        "after",
        "dependency cycle c -> a -> b -> c",
    ),
    (jsonl(task("a"), task("b", after="a", params={"x": "${a.[}"})), 2, "params.x", "JMESPath syntax error"),
    (jsonl(task("a"), task("b", after="a", params={"x": "${a.id"})), 2, "params.x", "unterminated"),
    (jsonl(task("a", params={"x": "${}"})), 1, "params.x", "empty ${}"),
    (jsonl(task("a", params={"x": "${ }"})), 1, "params.x", "empty ${}"),
    (
        jsonl(task("a"), task("b", after="a", params={"x": "${summarize(a)}"})),
        2,
        "params.x",
        "unknown function summarize()",
    ),
    (jsonl(task("a"), task("b", after="a", params={"x": "${pluck()}"})), 2, "params.x", "pluck() takes at least 2"),
    (
        jsonl(task("a"), task("b", after="a", params={"x": "${hash_join(a, a, 'k', 'k', 'k')}"})),
        2,
        "params.x",
        "hash_join() takes 3 to 4",
    ),
    (jsonl(task("a"), task("b", after="a", params={"x": "${length(a, a)}"})), 2, "params.x", "length() takes 1"),
    (
        jsonl(task("a"), task("b", after="a", params={"x": "${format_as(a, 'yaml')}"})),
        2,
        "params.x",
        "unknown format 'yaml'",
    ),
    (jsonl(task("a"), task("b", after="a", params={"x": "${a[?s == `open`]}"})), 2, "params.x", "must be JSON"),
    (
        jsonl(task("a"), task("b", after="a", params={"deep": {"er": [{"x": "ok ${a.[0}"}]}})),
        2,
        "params.deep.er[0].x",
        "JMESPath syntax error",
    ),
    (jsonl(task("a"), task("b", after="a", params={"a key": "${a..b}"})), 2, 'params["a key"]', "syntax error"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("text", "line", "field", "words"), REFUSALS)
async def test_refused_before_running(text: str, line: int | None, field: str | None, words: str) -> None:
    error = await refused(text)
    assert isinstance(error, InvalidArgument)
    assert words in error.message
    assert error.data.get("line") == line
    assert error.data.get("field") == field
    if line is not None:
        assert error.message.startswith(f"line {line}: ")


@pytest.mark.anyio
async def test_refuses_more_tasks_than_the_limit() -> None:
    error = await refused(jsonl(task("a"), "", task("b"), task("c")), BatchLimits(max_tasks=2))
    assert "3 tasks; the limit is 2" in error.message
    assert error.data == {"field": "tasks", "tasks": 3, "limit": 2}
    assert len(parse_batch(jsonl(task("a"), task("b")), BatchLimits(max_tasks=2))) == 2


@pytest.mark.anyio
async def test_refuses_expressions_longer_than_the_limit() -> None:
    limits = BatchLimits(max_expression_length=12)
    ok = jsonl(task("a"), task("b", after="a", params={"x": "${a.abcdefghij}"}))  # 12 characters
    assert parse_batch(ok, limits)[1].params == {"x": "${a.abcdefghij}"}
    error = await refused(jsonl(task("a"), task("b", after="a", params={"x": "${a.abcdefghijk}"})), limits)
    assert "13 characters; the limit is 12" in error.message
    assert error.data["field"] == "params.x"


@pytest.mark.anyio
async def test_refuses_params_nested_too_deep() -> None:
    params: Any = "leaf"
    for _ in range(70):
        params = {"n": params}
    error = await refused(jsonl(task("a", params=params)))
    assert "deeper than 64" in error.message


@pytest.mark.anyio
async def test_refusal_data_names_the_task_and_expression() -> None:
    error = await refused(jsonl(task("a"), task("b", after="a", params={"x": "${a.[}"})))
    assert error.data == {"line": 2, "field": "params.x", "task": "b", "expression": "a.["}


@pytest.mark.anyio
async def test_precheck_sees_every_task_first_and_its_refusal_stops_the_batch() -> None:
    seen: list[str] = []

    def precheck(t: Task) -> None:
        seen.append(t.id)
        if t.module == "hidden":
            raise NotFound(f"no module {t.module!r}")

    error = await refused(jsonl(task("a"), task("b", module="hidden"), task("c")), precheck=precheck)
    assert isinstance(error, NotFound)
    assert error.data == {"line": 2, "task": "b"}
    assert seen == ["a", "b"]


@pytest.mark.anyio
async def test_precheck_runs_only_after_static_validation() -> None:
    seen: list[str] = []
    error = await refused(jsonl(task("a"), task("b", after="zz")), precheck=lambda t: seen.append(t.id))
    assert "unknown task id" in error.message
    assert seen == []


def test_parses_fields_and_defaults() -> None:
    text = "\n".join(
        [
            "",
            json.dumps(task("search", params={"query": "会議メモ"}), ensure_ascii=False),
            "   ",
            json.dumps(task("page", after="search", output=True, account="work", params={"id": "${search.r[0].id}"})),
            json.dumps(task("both", after=["search", "page", "search"])),
            json.dumps(task("n", params=None, after=None, output=None, account=None)),
        ]
    )
    tasks = parse_batch(text)
    assert tasks == [
        Task("search", "m", "t", {"query": "会議メモ"}, (), False, None, 2),
        Task("page", "m", "t", {"id": "${search.r[0].id}"}, ("search",), True, "work", 4),
        Task("both", "m", "t", {}, ("search", "page"), False, None, 5),
        Task("n", "m", "t", {}, (), False, None, 6),
    ]


def test_params_encoded_twice_are_the_object_they_hold() -> None:
    line = json.dumps(task("a", after="b", params=json.dumps({"q": "${b.id}"})))
    tasks = parse_batch(line + "\n" + json.dumps(task("b")) + "\n" + json.dumps(task("c", params="")))
    assert tasks[0].params == {"q": "${b.id}"} and tasks[0].after == ("b",) and tasks[2].params == {}


def test_accepts_forward_references_crlf_and_line_separators_inside_strings() -> None:
    text = jsonl(task("b", after="a", params={"x": "${a}"}), task("a", params={"s": "x\u2028y"})) + "\r\n"
    text = text.replace("\n", "\r\n", 1)
    tasks = parse_batch(text)
    assert [(t.id, t.line, t.after) for t in tasks] == [("b", 1, ("a",)), ("a", 2, ())]
    assert tasks[1].params == {"s": "x\u2028y"}


def test_ids_may_be_64_characters_and_start_with_an_underscore() -> None:
    assert [t.id for t in parse_batch(jsonl(task("x" * 64), task("_a1")))] == ["x" * 64, "_a1"]


def test_escaped_and_plain_dollars_are_not_references() -> None:
    tasks = parse_batch(jsonl(task("a", params={"price": "$5", "tpl": "$${a.b}", "end": "costs $"})))
    assert tasks[0].params == {"price": "$5", "tpl": "$${a.b}", "end": "costs $"}


def test_braces_inside_jmespath_quotes_do_not_end_a_reference() -> None:
    expression = '${a[?name == \'}\'].{id: id, raw: `{"k": "}"}`}}'
    parse_batch(jsonl(task("a"), task("b", after="a", params={"x": expression})))


def test_limits_must_be_positive() -> None:
    for bad in ({"max_tasks": 0}, {"max_concurrency": -1}, {"task_timeout_s": 0.0}, {"max_result_bytes": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            BatchLimits(**bad)
    with pytest.raises(ValueError, match="integer"):
        BatchLimits(max_tasks=2.5)  # type: ignore[arg-type]
    assert BatchLimits(task_timeout_s=0.5).task_timeout_s == 0.5
