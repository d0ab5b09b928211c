"""A 2025-11-25 session's quiet requests are answered in their own HTTP request's task, with
everything the session's transport would have done: its owner, its idle countdown, cancellation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from mcpist.protocol.direct import DirectReplies
from support import http_client, new_token, runtime
from test_replies import CALL, kind, open_session, rpc

pytestmark = pytest.mark.anyio


class Runs(list[str]):
    """The methods `DirectReplies` ran, in order; `started`, when set, fires at each."""

    started: anyio.Event | None = None


@pytest.fixture
def direct_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Runs]:
    ran = Runs()
    original = DirectReplies._run

    async def counting(self: DirectReplies, session_id: str, runner: Any, envelope: Any, request: Any) -> bytes:
        ran.append(envelope.method)
        if ran.started is not None:
            ran.started.set()
        return await original(self, session_id, runner, envelope, request)

    monkeypatch.setattr(DirectReplies, "_run", counting)
    yield ran


def answer(response: httpx2.Response) -> dict[str, Any]:
    assert kind(response) == "application/json"
    body: dict[str, Any] = json.loads(response.text)
    return body


async def test_quiet_requests_are_answered_directly_and_alike(tmp_path: Path, direct_runs: list[str]) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            session, headers = await open_session(http, {})
            listed = answer(await http.post("/mcp", content=rpc("tools/list", {}, 2), headers=headers))
            assert {t["name"] for t in listed["result"]["tools"]} >= {"call", "get_module_schema"}
            called = answer(await http.post("/mcp", content=rpc("tools/call", CALL, "c-3"), headers=headers))
            assert called["id"] == "c-3"
            assert called["result"]["structuredContent"]["text"] == "hi"
            assert direct_runs == ["tools/list", "tools/call"]
            response = await http.post("/mcp", content=rpc("tools/call", CALL, 4), headers=headers)
            assert response.headers["mcp-session-id"] == session
            # the handler chain's own errors, as the SDK words them
            missing = {"uri": "mcpist://demo/nothing-here"}
            unknown = answer(await http.post("/mcp", content=rpc("resources/read", missing, 5), headers=headers))
            assert unknown["error"]["code"] == -32002 and unknown["id"] == 5, unknown
            invalid = answer(await http.post("/mcp", content=rpc("tools/call", {"arguments": {}}, 6), headers=headers))
            assert invalid["error"]["code"] == -32602
            # what can carry more than its answer still goes the SDK's way
            progress = {**CALL, "_meta": {"progressToken": "p"}}
            streamed = await http.post("/mcp", content=rpc("tools/call", progress, 7), headers=headers)
            assert kind(streamed) == "text/event-stream"
            # a client that takes no JSON gets the transport's refusal
            sse_only = {**headers, "Accept": "text/event-stream"}
            assert (await http.post("/mcp", content=rpc("tools/list", {}, 8), headers=sse_only)).status_code == 406
            assert direct_runs == ["tools/list", "tools/call", "tools/call", "resources/read", "tools/call"]


async def test_another_credential_never_reaches_the_session(tmp_path: Path, direct_runs: list[str]) -> None:
    async with runtime(tmp_path) as rt:
        token, other = await new_token(rt), await new_token(rt, "other")
        async with http_client(rt, token) as http:
            _, headers = await open_session(http, {})
            intruder = {**headers, "Authorization": f"Bearer {other}"}
            refused = await http.post("/mcp", content=rpc("tools/call", CALL, 2), headers=intruder)
            assert refused.status_code == 404
            assert direct_runs == []
            assert answer(await http.post("/mcp", content=rpc("tools/call", CALL, 3), headers=headers))["result"]


async def test_an_ended_session_is_not_answered(tmp_path: Path, direct_runs: list[str]) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            _, headers = await open_session(http, {})
            assert answer(await http.post("/mcp", content=rpc("tools/call", CALL, 2), headers=headers))["result"]
            assert (await http.delete("/mcp", headers=headers)).status_code == 200
            gone = await http.post("/mcp", content=rpc("tools/call", CALL, 3), headers=headers)
            assert gone.status_code == 404
            assert direct_runs == ["tools/call"]


def slow_call(ms: int) -> dict[str, Any]:
    return {"name": "call", "arguments": {"module": "demo", "tool_name": "wait", "params": {"ms": ms}}}


async def cancel_while_running(
    http: httpx2.AsyncClient, runs: Runs, headers: dict[str, str], call: bytes, cancel: bytes, by: dict[str, str]
) -> tuple[httpx2.Response, httpx2.Response]:
    """Post `call`, and once `DirectReplies` runs it, `cancel` with the headers `by`; both answers."""
    got: list[httpx2.Response] = []

    async def post() -> None:
        got.append(await http.post("/mcp", content=call, headers=headers))

    runs.started = anyio.Event()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(post)
            # set before the request registers for cancellation, which it does before it first waits
            await runs.started.wait()
            cancelled = await http.post("/mcp", content=cancel, headers=by)
    return got[0], cancelled


async def test_a_cancelled_request_is_answered_as_cancelled(tmp_path: Path, direct_runs: Runs) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            _, headers = await open_session(http, {})
            call = rpc("tools/call", slow_call(20_000), "slow-1")
            cancel = rpc("notifications/cancelled", {"requestId": "slow-1", "reason": "user"}, None)
            answered, cancelled = await cancel_while_running(http, direct_runs, headers, call, cancel, headers)
            assert cancelled.status_code == 202
            body = answer(answered)
            assert body["id"] == "slow-1"
            assert body["error"]["code"] == -32800
            assert "result" not in body
            # the session goes on
            assert answer(await http.post("/mcp", content=rpc("tools/call", CALL, 2), headers=headers))["result"]


async def test_another_credential_cannot_cancel_the_sessions_requests(tmp_path: Path, direct_runs: Runs) -> None:
    async with runtime(tmp_path) as rt:
        token, other = await new_token(rt), await new_token(rt, "other")
        async with http_client(rt, token) as http:
            _, headers = await open_session(http, {})
            call = rpc("tools/call", slow_call(400), "slow-2")
            cancel = rpc("notifications/cancelled", {"requestId": "slow-2"}, None)
            intruder = {**headers, "Authorization": f"Bearer {other}"}
            answered, cancelled = await cancel_while_running(http, direct_runs, headers, call, cancel, intruder)
            assert cancelled.status_code == 404
            assert answer(answered)["result"]["structuredContent"] == {"waited_ms": 400}


async def test_a_request_in_flight_holds_its_session_past_the_idle_limit(
    tmp_path: Path, direct_runs: list[str]
) -> None:
    slow = slow_call(900)
    async with runtime(tmp_path, limits={"session_idle_s": 0.3}) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            _, headers = await open_session(http, {})
            done = answer(await http.post("/mcp", content=rpc("tools/call", slow, 2), headers=headers))
            assert done["result"]["structuredContent"] == {"waited_ms": 900}, done
            again = await http.post("/mcp", content=rpc("tools/call", CALL, 3), headers=headers)
            assert answer(again)["result"]["structuredContent"]["text"] == "hi"
            assert direct_runs == ["tools/call", "tools/call"]
            # idle for longer than the limit: the session ends as before
            await anyio.sleep(0.8)
            assert (await http.post("/mcp", content=rpc("tools/call", CALL, 4), headers=headers)).status_code == 404
