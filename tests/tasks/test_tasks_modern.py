"""MCP Tasks on 2026-07-28 (the `io.modelcontextprotocol/tasks` extension) through the SDK's client:
the server decides, tasks/get carries the outcome inline, tasks/update answers input requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from tasks_support import (
    MODERN,
    TASKS,
    SwitchableAccounts,
    TasksExtension,
    as_token,
    get_detailed,
    modern,
    probe,
    raw,
    start_modern,
    until_over,
    world,
)

from mcpist.tasks import Owner
from support import mcp_client, runtime

pytestmark = pytest.mark.anyio

QUICK = {"module": "slow", "tool_name": "quick", "params": {"n": 4}}


def _gate(tag: str) -> dict[str, Any]:
    return {"module": "slow", "tool_name": "gate", "params": {"tag": tag}}


async def _refused(coro: Any) -> MCPError:
    with pytest.raises(MCPError) as raised:
        await coro
    return raised.value


async def test_discover_advertises_the_extension(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, modern(rt) as client:
        discovered = await client.session.send_discover(MODERN)
    assert discovered["capabilities"]["extensions"][TASKS] == {}
    assert "tasks" not in discovered["capabilities"]


async def test_a_long_call_becomes_a_task_whose_result_tasks_get_carries(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, modern(rt) as client:
        gate = probe()
        handle = await start_modern(client, "call", _gate("one"))
        assert handle.result_type == "task" and handle.status == "working"
        assert handle.ttl_ms == 3_600_000 and handle.poll_interval_ms == 50
        working = await get_detailed(client, handle.task_id)
        assert (working.status, working.resultType) == ("working", "complete")
        assert working.model_extra is not None and "result" not in working.model_extra
        gate.release.set()
        done = await until_over(client, handle.task_id)
        assert done.status == "completed"
        assert done.model_extra is not None and done.model_extra["result"]["structuredContent"] == {"tag": "one"}


async def test_the_sdk_client_resolves_a_task_into_the_call_result(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, modern(rt) as client:
        gate = probe()
        gate.release.set()
        result = await client.call_tool("call", _gate("resolved"))
    assert result.structured_content == {"tag": "resolved"}


async def test_a_tool_error_completes_the_task_with_its_result(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, modern(rt) as client:
        handle = await start_modern(client, "call", {"module": "slow", "tool_name": "refuse"})
        done = await until_over(client, handle.task_id)
        assert done.status == "completed" and done.model_extra is not None
        assert done.model_extra["result"]["isError"] is True
        assert done.model_extra["result"]["structuredContent"]["code"] == "CONFLICT"


async def test_a_quick_call_answers_inline_and_leaves_no_task(tmp_path: Path) -> None:
    async with world(tmp_path, tasks={"inline_s": 10}) as rt, modern(rt) as client:
        result = await client.session.call_tool("call", QUICK, allow_claimed=True)
        assert isinstance(result, types.CallToolResult) and result.structured_content == {"n": 4, "square": 16}
        assert rt.tasks is not None
        assert (await rt.tasks.store.page(Owner(rt.owner.id, None), None, 10))[0] == []


async def test_without_the_extension_a_call_is_answered_as_usual(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, modern(rt, tasks=False) as client:
        gate = probe()
        gate.release.set()
        result = await client.call_tool("call", _gate("plain"))
        assert result.structured_content == {"tag": "plain"}
        refused = await _refused(raw(client, "tasks/get", {"taskId": "whatever"}))
        assert refused.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
        assert refused.error.data == {"requiredCapabilities": {"extensions": {TASKS: {}}}}


async def test_cancel_acknowledges_and_stops_the_work(tmp_path: Path) -> None:
    async with world(tmp_path, tasks={"lease_s": 3600}) as rt, modern(rt) as client:
        gate = probe()
        handle = await start_modern(client, "call", _gate("long"))
        await gate.until(lambda: gate.started == ["long"])
        ack = await raw(client, "tasks/cancel", {"taskId": handle.task_id})
        assert ack["resultType"] == "complete" and set(ack) <= {"resultType", "_meta"}
        assert (await until_over(client, handle.task_id)).status == "cancelled"
        assert gate.stopped == ["long"]
        again = await raw(client, "tasks/cancel", {"taskId": handle.task_id})  # over already: still an ack
        assert again["resultType"] == "complete"


async def test_tasks_list_and_tasks_result_are_not_in_this_revision(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, modern(rt) as client:
        for method in ("tasks/list", "tasks/result"):
            refused = await _refused(raw(client, method, {"taskId": "x"}))
            assert refused.error.code == types.METHOD_NOT_FOUND


async def test_another_token_sees_a_task_as_missing(tmp_path: Path) -> None:
    async with world(tmp_path) as rt:
        async with modern(rt, as_token(rt, "token-a")) as client:
            gate = probe()
            handle = await start_modern(client, "call", _gate("mine"))
        for caller in (as_token(rt, "token-b"), as_token(rt, "token-a", user_id="someone-else")):
            async with modern(rt, caller) as other:
                for method in ("tasks/get", "tasks/cancel"):
                    refused = await _refused(raw(other, method, {"taskId": handle.task_id}))
                    assert (refused.error.code, refused.error.message) == (
                        types.INVALID_PARAMS,
                        "Failed to retrieve task: Task not found",
                    )
        gate.release.set()
        async with modern(rt, as_token(rt, "token-a")) as client:
            assert (await until_over(client, handle.task_id)).status == "completed"


async def test_input_required_carries_the_url_elicitation_and_update_answers_it(tmp_path: Path) -> None:
    async with world(tmp_path) as rt, modern(rt) as client:
        accounts = SwitchableAccounts()
        rt.accounts = accounts
        handle = await start_modern(client, "call", {"module": "linked", "tool_name": "whoami"})
        waiting = await until_over(client, handle.task_id, ("input_required",))
        assert waiting.model_extra is not None
        assert waiting.model_extra["inputRequests"] == {
            "connect-el-1": {
                "method": "elicitation/create",
                "params": {
                    "mode": "url",
                    "message": "connect your linked account to continue",
                    "url": "http://127.0.0.1:8765/connect/linked?state=abc",
                },
            }
        }
        ack = await raw(
            client, "tasks/update", {"taskId": handle.task_id, "inputResponses": {"connect-el-1": {"action": "accept"}}}
        )
        assert ack["resultType"] == "complete"
        accounts.connect()
        assert await rt.elicitations.complete("el-1")
        done = await until_over(client, handle.task_id)
        assert done.model_extra is not None
        assert done.model_extra["result"]["structuredContent"] == {"account": "default"}

        accounts.connected = False
        declined = await start_modern(client, "call", {"module": "linked", "tool_name": "whoami"})
        await until_over(client, declined.task_id, ("input_required",))
        answer = {"connect-el-2": {"action": "decline"}}
        await raw(client, "tasks/update", {"taskId": declined.task_id, "inputResponses": answer})
        failed = await until_over(client, declined.task_id)
        assert failed.status == "failed" and failed.model_extra is not None
        assert failed.model_extra["error"]["code"] == types.URL_ELICITATION_REQUIRED


async def test_over_http_a_task_runs_past_its_request_and_tasks_get_finds_it(tmp_path: Path) -> None:
    async with (
        runtime(tmp_path, tasks={"inline_s": 0, "poll_interval_s": 0.05}) as rt,
        mcp_client(rt, MODERN, extensions=[TasksExtension()]) as client,
    ):
        handle = await start_modern(client, "call", {"module": "demo", "tool_name": "wait", "params": {"ms": 200}})
        assert handle.status == "working"
        done = await until_over(client, handle.task_id)
        assert done.model_extra is not None and done.model_extra["result"]["structuredContent"] == {"waited_ms": 200}
