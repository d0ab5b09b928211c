"""MCP Tasks on 2025-11-25 through the SDK's client: capability, task-augmented calls, tasks/get,
tasks/result, tasks/list, tasks/cancel, status notifications, ownership, URL elicitation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from tasks_support import (
    StatusLog,
    SwitchableAccounts,
    as_token,
    cancel_task,
    get_task,
    legacy,
    list_tasks,
    probe,
    raw,
    start_task,
    task_result,
    world,
)

from mcpist.modules.api import Caller
from support import mcp_client, new_token, runtime

pytestmark = pytest.mark.anyio

NOT_FOUND = "Failed to retrieve task: Task not found"
QUICK = {"module": "slow", "tool_name": "quick", "params": {"n": 7}}


def _gate(tag: str) -> dict[str, Any]:
    return {"module": "slow", "tool_name": "gate", "params": {"tag": tag}}


async def _refused(coro: Any) -> MCPError:
    with pytest.raises(MCPError) as raised:
        await coro
    return raised.value


async def test_the_server_declares_tasks_and_the_long_meta_tools_support_them(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, legacy(rt) as client:
        tasks = client.server_capabilities.tasks
        assert tasks is not None and tasks.list is not None and tasks.cancel is not None
        assert tasks.requests is not None and tasks.requests.tools is not None and tasks.requests.tools.call is not None
        listed = await client.list_tools()
    support = {t.name: t.execution.task_support if t.execution else None for t in listed.tools}
    assert support == {"get_module_schema": None, "call": "optional", "batch": "optional", "run_script": "optional"}


async def test_create_then_get_then_result_with_a_status_notification(tmp_path: Path) -> None:
    log = StatusLog()
    async with world(tmp_path) as rt, legacy(rt, log=log) as client:
        gate = probe()
        task = await start_task(client, "call", _gate("one"), ttl=120_000)
        assert task["status"] == "working"
        assert task["ttl"] == 120_000 and task["pollInterval"] == 50
        assert task["createdAt"].endswith("Z") and task["lastUpdatedAt"].endswith("Z")
        await gate.until(lambda: gate.started == ["one"])
        working = await get_task(client, task["taskId"])
        assert (working.status, working.ttl, working.created_at) == ("working", 120_000, task["createdAt"])
        gate.release.set()
        result = await task_result(client, task["taskId"])
        assert result.structured_content == {"tag": "one"} and not result.is_error
        assert result.meta == {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}
        done = await get_task(client, task["taskId"])
        assert done.status == "completed" and done.last_updated_at >= done.created_at
        await log.until(task["taskId"], "completed")


async def test_a_tool_error_fails_the_task_and_tasks_result_returns_that_result(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, legacy(rt) as client:
        task = await start_task(client, "call", {"module": "slow", "tool_name": "refuse"})
        result = await task_result(client, task["taskId"])
        assert result.is_error and result.structured_content == {
            "code": "CONFLICT",
            "message": "refused on purpose",
            "data": {},
        }
        failed = await get_task(client, task["taskId"])
        assert failed.status == "failed" and failed.status_message == "CONFLICT: refused on purpose"


async def test_an_invalid_call_is_a_tool_error_the_task_keeps_and_malformed_params_are_refused_at_once(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as rt, legacy(rt) as client:
        malformed = await _refused(raw(client, "tools/call", {"name": "call", "arguments": "x", "task": {}}))
        assert malformed.error.code == types.INVALID_PARAMS
        assert (await list_tasks(client)).tasks == []
        task = await start_task(client, "call", {"module": "slow"})  # no tool_name: an invalid call
        result = await task_result(client, task["taskId"])
        assert result.is_error and result.structured_content is not None
        assert result.structured_content["code"] == "INVALID_ARGUMENT"


async def test_only_task_capable_tools_take_a_task_and_the_ttl_is_bounded(tmp_path: Path) -> None:
    async with world(tmp_path, tasks={"max_ttl_s": 600, "default_ttl_s": 60}) as rt, legacy(rt) as client:
        refused = await _refused(raw(client, "tools/call", {"name": "get_module_schema", "arguments": {}, "task": {}}))
        assert refused.error.code == types.METHOD_NOT_FOUND
        bad = await _refused(raw(client, "tools/call", {"name": "call", "arguments": QUICK, "task": {"ttl": "1h"}}))
        assert bad.error.code == types.INVALID_PARAMS
        assert (await start_task(client, "call", QUICK, ttl=10**12))["ttl"] == 600_000
        assert (await start_task(client, "call", QUICK, ttl=None))["ttl"] == 60_000
        assert (await start_task(client, "call", QUICK, ttl=1))["ttl"] == 1_000
        plain = await client.call_tool("call", QUICK)  # without a task: answered at once, as ever
        assert plain.structured_content == {"n": 7, "square": 49}


async def test_tasks_list_pages_newest_first_and_refuses_a_bad_cursor(tmp_path: Path) -> None:
    async with world(tmp_path, tasks={"list_page_size": 2}) as rt, legacy(rt) as client:
        created = [(await start_task(client, "call", QUICK))["taskId"] for _ in range(5)]
        pages: list[list[str]] = []
        cursor: str | None = None
        while True:
            page = await list_tasks(client, cursor)
            pages.append([t.task_id for t in page.tasks])
            cursor = page.next_cursor
            if cursor is None:
                break
        assert [len(p) for p in pages] == [2, 2, 1]
        assert [t for p in pages for t in p] == list(reversed(created))
        bad = await _refused(list_tasks(client, "bm90LWEtY3Vyc29y"))
        assert bad.error.code == types.INVALID_PARAMS


async def test_cancel_stops_a_long_batch_and_its_later_tasks_never_start(tmp_path: Path) -> None:
    lines = [json.dumps({"id": tag, "module": "slow", "tool": "gate", "params": {"tag": tag}}) for tag in "abc"]
    # no sweep meanwhile (it too would stop the work, a while later): the cancel alone must stop it
    async with world(tmp_path, batch={"max_concurrency": 1}, tasks={"lease_s": 3600}) as rt, legacy(rt) as client:
        gate = probe()
        task = await start_task(client, "batch", {"tasks": "\n".join(lines)})
        await gate.until(lambda: gate.started == ["a"])
        cancelled = await cancel_task(client, task["taskId"])
        assert cancelled.status == "cancelled" and cancelled.status_message == "The task was cancelled by request."
        assert rt.tasks is not None
        with anyio.fail_after(10):
            await rt.tasks.join(task["taskId"])
        gate.release.set()  # had anything survived the cancellation, it would now run to the end
        assert gate.started == ["a"] and gate.stopped == ["a"]
        assert (await get_task(client, task["taskId"])).status == "cancelled"
        again = await _refused(cancel_task(client, task["taskId"]))
        assert (again.error.code, again.error.message) == (
            types.INVALID_PARAMS,
            "Cannot cancel task: already in terminal status 'cancelled'",
        )
        result = await _refused(task_result(client, task["taskId"]))
        assert result.error.code == -32000 and result.error.message.startswith("Task cancelled")


async def test_cancel_stops_a_script_before_its_next_tool_call(tmp_path: Path) -> None:
    script = "def main():\n    for t in ['a', 'b']:\n        call('slow', 'gate', {'tag': t})\n"
    async with world(tmp_path, script={"workers": 1}, tasks={"lease_s": 3600}) as rt, legacy(rt) as client:
        gate = probe()
        task = await start_task(client, "run_script", {"script": script})
        await gate.until(lambda: gate.started == ["a"])
        await cancel_task(client, task["taskId"])
        assert rt.tasks is not None
        with anyio.fail_after(10):
            await rt.tasks.join(task["taskId"])
        gate.release.set()
        assert gate.started == ["a"] and gate.stopped == ["a"]


async def test_another_user_or_token_sees_a_task_as_missing(tmp_path: Path) -> None:
    async with world(tmp_path) as rt:
        mine = as_token(rt, "token-a")
        async with legacy(rt, mine) as client:
            task_id = (await start_task(client, "call", QUICK))["taskId"]
            assert (await task_result(client, task_id)).structured_content == {"n": 7, "square": 49}
        strangers = [as_token(rt, "token-b"), Caller(user_id="someone-else", token_id="token-a"), Caller(rt.owner.id)]
        for caller in strangers:
            async with legacy(rt, caller) as other:
                for attempt in (get_task(other, task_id), task_result(other, task_id), cancel_task(other, task_id)):
                    refused = await _refused(attempt)
                    assert (refused.error.code, refused.error.message) == (types.INVALID_PARAMS, NOT_FOUND)
                assert (await list_tasks(other)).tasks == []
                missing = await _refused(get_task(other, "no-such-task"))
                assert (missing.error.code, missing.error.message) == (types.INVALID_PARAMS, NOT_FOUND)
        async with legacy(rt, mine) as client:
            assert (await get_task(client, task_id)).status == "completed"


async def test_over_http_each_api_token_has_its_own_tasks(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        first, second = await new_token(rt, "first"), await new_token(rt, "second")
        async with mcp_client(rt, "legacy", token=first) as client:
            task = await start_task(client, "call", {"module": "demo", "tool_name": "echo", "params": {"text": "hi"}})
            result = await task_result(client, task["taskId"])
            assert result.structured_content == {"text": "hi", "user": rt.owner.id}
        async with mcp_client(rt, "legacy", token=second) as other:
            refused = await _refused(get_task(other, task["taskId"]))
            assert refused.error.message == NOT_FOUND
        async with mcp_client(rt, "legacy", token=first) as client:  # a new session, the same token
            assert (await get_task(client, task["taskId"])).status == "completed"


async def test_a_caller_has_at_most_max_per_caller_tasks_working(tmp_path: Path) -> None:
    async with world(tmp_path, tasks={"max_per_caller": 1}) as rt, legacy(rt) as client:
        gate = probe()
        await start_task(client, "call", _gate("held"))
        refused = await _refused(start_task(client, "call", QUICK))
        assert refused.error.code == -32000 and "tasks.max_per_caller" in refused.error.message
        gate.release.set()


async def test_input_required_while_the_user_connects_an_account(tmp_path: Path) -> None:
    asked: list[dict[str, Any]] = []
    elicited = anyio.Event()

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.model_dump(by_alias=True, exclude_none=True))
        elicited.set()
        return types.ElicitResult(action="accept")

    log = StatusLog()
    async with world(tmp_path) as rt, legacy(rt, log=log, elicitation_callback=on_elicit) as client:
        accounts = SwitchableAccounts()
        rt.accounts = accounts
        task = await start_task(client, "call", {"module": "linked", "tool_name": "whoami"})
        await log.until(task["taskId"], "input_required")
        waiting = await get_task(client, task["taskId"])
        assert waiting.status == "input_required"
        assert waiting.status_message == "connect your linked account to continue"
        results: list[types.CallToolResult] = []

        async def collect() -> None:
            results.append(await task_result(client, task["taskId"]))

        async with anyio.create_task_group() as tg:
            tg.start_soon(collect)
            with anyio.fail_after(10):
                await elicited.wait()
            assert asked[0]["mode"] == "url" and asked[0]["elicitationId"] == "el-1"
            assert asked[0]["url"] == "http://127.0.0.1:8765/connect/linked?state=abc"
            assert asked[0]["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}
            accounts.connect()
            assert await rt.elicitations.complete("el-1")
        assert results[0].structured_content == {"account": "default"}
        await log.until(task["taskId"], "working")
        assert (await get_task(client, task["taskId"])).status == "completed"
