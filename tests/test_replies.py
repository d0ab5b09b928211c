"""Each request is answered as one JSON body when nothing but its answer can come back, else as SSE."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mcpist.observe import metrics
from support import http_client, new_token, runtime

pytestmark = pytest.mark.anyio

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
CALL = {"name": "call", "arguments": {"module": "demo", "tool_name": "echo", "params": {"text": "hi"}}}


def rpc(method: str, params: dict[str, Any] | None = None, id_: int | None = 1) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        body["id"] = id_
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode()


def kind(response: httpx2.Response) -> str:
    assert response.status_code in (200, 202), response.text
    return response.headers.get("content-type", "").split(";")[0]


async def open_session(http: httpx2.AsyncClient, capabilities: dict[str, Any]) -> tuple[str, dict[str, str]]:
    init = {"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}
    opened = await http.post("/mcp", content=rpc("initialize", init), headers=ACCEPT)
    assert kind(opened) == "application/json"
    session = opened.headers["mcp-session-id"]
    headers = {**ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    assert (await http.post("/mcp", content=rpc("notifications/initialized", id_=None), headers=headers)).status_code
    return session, headers


async def test_a_quiet_session_gets_json_until_it_asks_for_log_messages(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            _, headers = await open_session(http, {})
            assert (metrics.REGISTRY.get_sample_value("mcpist_sessions_open") or 0) >= 1
            assert kind(await http.post("/mcp", content=rpc("tools/list", {}), headers=headers)) == "application/json"
            answer = await http.post("/mcp", content=rpc("tools/call", CALL, 2), headers=headers)
            assert kind(answer) == "application/json"
            assert json.loads(answer.text)["result"]["structuredContent"]["text"] == "hi"
            # asking for progress needs a stream
            with_progress = {**CALL, "_meta": {"progressToken": "p1"}}
            streamed = await http.post("/mcp", content=rpc("tools/call", with_progress, 3), headers=headers)
            assert kind(streamed) == "text/event-stream"
            assert '"structuredContent"' in streamed.text
            # once the session wants log messages, every call may carry some
            level = await http.post("/mcp", content=rpc("logging/setLevel", {"level": "info"}, 4), headers=headers)
            assert kind(level) == "application/json"
            after = await http.post("/mcp", content=rpc("tools/call", CALL, 5), headers=headers)
            assert kind(after) == "text/event-stream"


async def test_a_client_that_can_be_asked_gets_a_stream_for_calls(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            _, headers = await open_session(http, {"elicitation": {}})
            assert kind(await http.post("/mcp", content=rpc("tools/list", {}), headers=headers)) == "application/json"
            answer = await http.post("/mcp", content=rpc("tools/call", CALL, 2), headers=headers)
            assert kind(answer) == "text/event-stream"
            assert '"structuredContent"' in answer.text


async def test_a_2026_call_is_one_json_body(tmp_path: Path) -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    headers = {**ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "call"}
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            answer = await http.post("/mcp", content=rpc("tools/call", {**CALL, "_meta": meta}), headers=headers)
            assert kind(answer) == "application/json"
            assert json.loads(answer.text)["result"]["structuredContent"]["text"] == "hi"
            # a body over the limit is not read twice, and still refused by the SDK's own limit
            big = rpc("tools/call", {**CALL, "_meta": meta, "pad": "x" * (rt.settings.max_request_bytes + 10)})
            assert (await http.post("/mcp", content=big, headers=headers)).status_code == 413
