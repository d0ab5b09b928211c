"""run_script through an MCP client, with the memory and context modules: results, args, the built-ins,
errors with their position, and the guide's own examples."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from script_support import client, error, ok, reset_probe, run, world

from mcpist.runtime import Runtime

pytestmark = pytest.mark.anyio

NO_MEMO = "00000000-0000-4000-8000-000000000000"
DOC = (Path(__file__).parents[2] / "docs" / "script.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def rt(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Runtime]:
    async with world(tmp_path_factory.mktemp("script_run")) as runtime:
        yield runtime


@pytest.fixture(scope="module")
async def c(rt: Runtime) -> AsyncIterator[Client]:
    async with client(rt, workers=2) as mcp:
        yield mcp


async def test_tools_list_and_the_guide(c: Client) -> None:
    tools = {t.name: t for t in (await c.list_tools()).tools}
    assert tools["run_script"].input_schema["required"] == ["script"]
    assert set(tools["run_script"].input_schema["properties"]) == {"script", "args"}
    assert 'get_module_schema("script")' in (tools["run_script"].description or "")
    guide = (await c.call_tool("get_module_schema", {"module": "script"})).structured_content
    assert guide is not None and guide["module"] == "script"
    text = guide["guide"]
    assert len(text) <= 3_300 and len(tools["run_script"].description or "") <= 160  # context economy
    assert "30 s wall time" in text and "200 tool calls" in text  # this server's limits, not placeholders
    assert not re.search(r"\{(wall|cpu|memory|calls|output|depth|nesting)", text)


async def test_main_returns_the_result_with_args_and_tool_results(c: Client) -> None:
    script = """
def main():
    saved = []
    for text in args["notes"]:
        saved.append(call("memory", "save", {"namespace": args["space"], "content": text})["memo_id"])
    found = call("memory", "search", {"namespace": args["space"], "query": "estimate", "mode": "keyword"})
    hits = [item["memo_id"] for item in found["items"]]
    n = len(saved)
    return {
        "saved": len(saved),
        "all_found": all([memo in hits for memo in saved]),
        "first": found["items"][0]["content"] if hits else None,
        "echo": json.decode(json.encode(args))["space"],
        "f": f"{n} saved",
    }
"""
    body = await ok(c, script, {"space": "run1", "notes": ["estimate for March", "estimate for April"]})
    assert body == {"saved": 2, "all_found": True, "first": body["first"], "echo": "run1", "f": "2 saved"}
    assert body["first"].startswith("estimate for")


async def test_a_scalar_result_is_wrapped_and_args_default_to_an_empty_object(c: Client) -> None:
    assert await ok(c, "def main():\n    return len(args)\n") == {"result": 0}
    assert await ok(c, "def main():\n    return None\n") == {"result": None}


async def test_shaping_builtins(c: Client) -> None:
    script = """
def main():
    items = [
        {"id": "a", "status": "open", "due": 3, "owner": {"id": "u1"}},
        {"id": "b", "status": "done", "due": 1, "owner": {"id": "u2"}},
        {"id": "c", "status": "open", "due": 2, "owner": {"id": "u1"}},
    ]
    users = [{"owner_id": "u1", "name": "Aiko"}]
    return {
        "open": pluck(where(items, status="open"), "id"),
        "by_due": [x["id"] for x in sort_by(items, "due", desc=True)],
        "joined": [(r["id"], r["name"]) for r in hash_join(
            [{"id": i["id"], "uid": i["owner"]["id"]} for i in items], users, "uid", "owner_id")],
        "groups": {k: len(v) for k, v in group_by(items, "owner.id").items()},
        "index": sorted(index_by(items, "id").keys()),
        "unique": unique([1, 2, 1, {"a": 1}, {"a": 1}]),
        "md": format_as(pluck(items[:1], "id", "due"), "markdown"),
        "csv": format_as(pluck(items[:1], "id", "due"), "csv"),
    }
"""
    assert await ok(c, script) == {
        "open": [{"id": "a"}, {"id": "c"}],
        "by_due": ["a", "c", "b"],
        "joined": [["a", "Aiko"], ["c", "Aiko"]],
        "groups": {"u1": 2, "u2": 1},
        "index": ["a", "b", "c"],
        "unique": [1, 2, {"a": 1}],
        "md": "| id | due |\n|---|---|\n| a | 3 |",
        "csv": "id,due\na,3\n",
    }


async def test_a_tool_error_fails_the_script_with_the_tools_code_message_and_position(c: Client) -> None:
    body = await error(
        c,
        f'def main():\n    x = 1\n    return call("memory", "delete", {{"namespace": "n", "memo_id": "{NO_MEMO}"}})\n',
    )
    direct = await c.call_tool(
        "call", {"module": "memory", "tool_name": "delete", "params": {"namespace": "n", "memo_id": NO_MEMO}}
    )
    tool_error = direct.structured_content
    assert tool_error is not None and tool_error["code"] == "NOT_FOUND"
    assert body["code"] == "NOT_FOUND"
    assert body["message"] == f"{tool_error['message']} (line 3, column 12)"
    assert body["data"] == {**tool_error["data"], "line": 3, "column": 12}
    # a call refused by the tool's own validation names the field, and the script's position
    invalid = await error(c, 'def main():\n    call("memory", "search", {"namespace": "n", "k": 1000})\n')
    assert invalid["code"] == "INVALID_ARGUMENT" and "k" in invalid["message"]
    assert (invalid["data"]["line"], invalid["data"]["column"]) == (2, 5)


async def test_try_call_returns_the_outcome_instead_of_failing(c: Client) -> None:
    script = """
def main():
    bad = try_call("context", "get_context", {"session_id": "missing"})
    good = try_call("context", "start_session")
    return {"bad": bad, "good_ok": good["ok"], "has_id": "session_id" in good["value"]}
"""
    body = await ok(c, script)
    direct = await c.call_tool(
        "call", {"module": "context", "tool_name": "get_context", "params": {"session_id": "missing"}}
    )
    expected = direct.structured_content
    assert expected is not None
    assert body == {
        "bad": {"ok": False, "error": {"code": expected["code"], "message": expected["message"]}},
        "good_ok": True,
        "has_id": True,
    }


async def test_call_all_runs_concurrently_and_returns_results_in_order(c: Client) -> None:
    state = reset_probe()
    # each call finishes only after `rank` others have: one at a time, the first would wait forever
    script = """
def main():
    return call_all([{"module": "probe", "tool": "ordered", "params": {"tag": t, "rank": r}}
                     for t, r in [("first", 2), ("second", 1), ("third", 0)]])
"""
    assert await ok(c, script) == {
        "result": [{"tag": "first", "finished": 3}, {"tag": "second", "finished": 2}, {"tag": "third", "finished": 1}]
    }
    assert state.calls == 3


async def test_call_all_fails_like_call_and_try_call_all_reports_each(c: Client) -> None:
    delete = {"module": "memory", "tool": "delete", "params": {"namespace": "n", "memo_id": NO_MEMO}}
    calls = json.dumps([{"module": "probe", "tool": "count"}, delete])
    failed = await error(c, f"def main():\n    return call_all({calls})\n")
    assert failed["code"] == "NOT_FOUND" and (failed["data"]["line"], failed["data"]["column"]) == (2, 12)
    both = await ok(c, f"def main():\n    return [r['ok'] for r in try_call_all({calls})]\n")
    assert both == {"result": [True, False]}


async def test_a_syntax_error_is_refused_with_its_position_before_anything_runs(c: Client) -> None:
    state = reset_probe()
    body = await error(c, 'def main():\n    call("probe", "count")\n    return [1, 2\n\ndef other(:\n    pass\n')
    assert body["code"] == "INVALID_ARGUMENT"
    assert body["message"].startswith("syntax error (line ")
    assert body["data"]["field"] == "script" and body["data"]["line"] in (4, 5)
    assert state.calls == 0


async def test_runtime_errors_carry_line_and_column(c: Client) -> None:
    body = await error(c, "def helper(xs):\n    return xs[5]\n\ndef main():\n    return helper([1])\n")
    assert body == {
        "code": "INVALID_ARGUMENT",
        "message": "the script failed (line 2, column 12): Index `5` is out of bound",
        "data": {"line": 2, "column": 12},
    }
    fail = await error(c, 'def main():\n    fail("no open items")\n')
    assert fail["message"] == "the script failed (line 2, column 5): fail: no open items"
    shaped = await error(c, 'def main():\n    return sort_by([{"a": 1}, {"a": "x"}], "a")\n')
    assert "sort_by(): the keys must be all numbers or all strings" in shaped["message"]


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ('load("x.star", "y")\ndef main():\n    return 1\n', "`load` is not allowed"),
        ("def main():\n    return open('/etc/passwd')\n", "Variable `open` not found"),
        ("def main():\n    print('hi')\n", "Variable `print` not found"),
        ("def main():\n    return time.now()\n", "Variable `time` not found"),
        ("def main():\n    while True:\n        pass\n", "while"),
        ('x = call("probe", "count")\ndef main():\n    return x\n', "call() runs only inside main()"),
        ("def other():\n    return 1\n", "must define main()"),
        ("def main(a):\n    return a\n", "must define main()"),
        ("def main():\n    return {1: 2}\n", "main() must return JSON"),
        ("def main():\n    return [len]\n", "main() must return JSON"),
    ],
)
async def test_what_a_script_cannot_do(c: Client, script: str, expected: str) -> None:
    body = await error(c, script)
    assert body["code"] == "INVALID_ARGUMENT"
    assert expected in body["message"], body


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"script": ""}, "script"),
        ({"script": "def main():\n    return 1\n", "args": [1]}, "args"),
        ({"script": "def main():\n    return 1\n", "extra": 1}, "extra"),
        ({"script": "def main():\n    return 1\n" + "#" * 70_000}, "script"),
    ],
)
async def test_bad_arguments_name_the_field(c: Client, arguments: dict[str, Any], field: str) -> None:
    result = await c.call_tool("run_script", arguments)
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["code"] == "INVALID_ARGUMENT"
    assert result.structured_content["data"]["field"] == field


def examples(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("where", ["guide", "docs/script.md"])
async def test_the_documented_examples_run(c: Client, where: str) -> None:
    text = DOC
    if where == "guide":
        guide = (await c.call_tool("get_module_schema", {"module": "script"})).structured_content
        assert guide is not None
        text = guide["guide"]
    found = examples(text)
    assert len(found) >= 2
    await ok(c, 'def main():\n    call("memory", "save", {"namespace": "notes", "content": "会議メモ: 予算"})\n')
    args = {"topic": "会議", "query": "会議", "min_score": 0.0, "session_id": "none"}
    for script in found:
        failed, body = await run(c, script, args)
        assert not failed, (script, body)
