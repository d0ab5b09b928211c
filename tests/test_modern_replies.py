"""A 2026-07-28 request answered as one JSON body is served without the SDK's second pass over it
(`protocol/modern.py`), and answered exactly as the SDK's own entry answers it: same status, same
content type, same JSON, for what the SDK refuses as for what it serves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mcpist.protocol.modern import ModernReplies
from mcpist.protocol.sessions import QuotaSessionManager
from support import http_client, new_token, runtime
from test_replies import ACCEPT, CALL

pytestmark = pytest.mark.anyio

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
HEADERS = {**ACCEPT, "MCP-Protocol-Version": VERSION}


def request(method: str, params: dict[str, Any] | None, id_: Any = 1, **headers: str) -> tuple[bytes, dict[str, str]]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": id_}
    if params is not None:
        body["params"] = {**params, "_meta": META}
    routing = {"Mcp-Method": method}
    if method == "tools/call" and params is not None and "name" in params:
        routing["Mcp-Name"] = params["name"]
    return json.dumps(body, ensure_ascii=False).encode(), {**HEADERS, **routing, **headers}


def call(text: str, id_: Any = 1, **headers: str) -> tuple[bytes, dict[str, str]]:
    params = {**CALL, "arguments": {**CALL["arguments"], "params": {"text": text}}}
    return request("tools/call", params, id_, **headers)


# (what it is, body, headers, whether the direct path serves it)
CASES: list[tuple[str, bytes, dict[str, str], bool]] = [
    ("a call", *call("hi"), True),
    ("a call with a string id and Japanese text", *call("こんにちは、世界", "req-7"), True),
    ("a listing", *request("tools/list", {}), True),
    ("a call to an unknown module", *request("tools/call", {"name": "call", "arguments": {"module": "nope"}}), True),
    ("a call without a tool name", *request("tools/call", {"arguments": {}}), True),
    ("an unknown method", *request("nothing/here", {}), True),
    ("an unknown tool", *request("tools/call", {"name": "no_such_tool", "arguments": {}}), True),
    ("a body that contradicts its Mcp-Method header", *call("hi", **{"Mcp-Method": "tools/list"}), False),
    ("an Mcp-Param header", *call("hi", **{"Mcp-Param-Text": "hi"}), False),
    (
        "a request without its envelope",
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}).encode(),
        {**HEADERS, "Mcp-Method": "tools/list"},
        False,
    ),
    ("a wrong Content-Type", *call("hi", **{"Content-Type": "text/plain"}), False),
    ("an Accept without JSON", *call("hi", Accept="text/event-stream"), False),
    ("a notification", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(), HEADERS, False),
    ("a batch", json.dumps([json.loads(call("hi")[0])]).encode(), HEADERS, False),
    (
        "a malformed envelope",
        json.dumps({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}).encode(),
        {**HEADERS, "Mcp-Method": "tools/list"},
        False,
    ),
    (
        "a task-augmented call",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {**CALL, "task": {"ttl": 60000}, "_meta": META},
            }
        ).encode(),
        {**HEADERS, "Mcp-Method": "tools/call", "Mcp-Name": "call"},
        False,
    ),
]


@pytest.fixture
def served_here(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether each request the direct path was offered was answered there."""
    taken: list[bool] = []
    original = ModernReplies.answer

    async def counting(self: ModernReplies, *args: Any) -> bool:
        answered = await original(self, *args)
        taken.append(answered)
        return answered

    monkeypatch.setattr(ModernReplies, "answer", counting)
    yield taken


def seen(response: httpx2.Response) -> tuple[int, str, Any]:
    content_type = response.headers.get("content-type", "").split(";")[0]
    body = json.loads(response.content) if content_type == "application/json" else response.text
    return response.status_code, content_type, body


async def test_each_request_is_answered_as_the_sdks_own_entry_answers_it(
    tmp_path: Path, served_here: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            direct, taken = [], []
            for _, body, headers, _ in CASES:
                served_here.clear()
                direct.append(seen(await http.post("/mcp", content=body, headers=headers)))
                taken.append(any(served_here))
            assert [c[0] for c in CASES if c[3]] == [c[0] for c, t in zip(CASES, taken, strict=True) if t]

            async def never(self: QuotaSessionManager, *args: Any) -> bool:
                return False

            monkeypatch.setattr(QuotaSessionManager, "answer_modern", never)
            for (what, body, headers, _), answered in zip(CASES, direct, strict=True):
                assert seen(await http.post("/mcp", content=body, headers=headers)) == answered, what


async def test_a_direct_answer_carries_the_result_and_the_request_id(tmp_path: Path, served_here: list[bool]) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            body, headers = call("日本語もそのまま", "c-1")
            response = await http.post("/mcp", content=body, headers=headers)
            status, content_type, answer = seen(response)
            assert (status, content_type) == (200, "application/json")
            assert answer["id"] == "c-1" and answer["result"]["structuredContent"]["text"] == "日本語もそのまま"
            assert int(response.headers["content-length"]) == len(response.content)
            assert response.headers["x-request-id"]
            assert "mcp-session-id" not in response.headers
            # a handler's refusal keeps the SDK's status table: unknown method -> its JSON-RPC error and HTTP status
            body, headers = request("nothing/here", {}, 2)
            status, _, answer = seen(await http.post("/mcp", content=body, headers=headers))
            assert answer["error"]["code"] == -32601 and answer["id"] == 2
            assert status != 200
    assert served_here == [True, True]


async def test_the_connections_exit_stack_is_unwound_only_when_something_is_on_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcp.server import Server
    from mcp.server.connection import Connection
    from mcp.server.runner import ServerRunner
    from mcp.shared.exceptions import MCPError
    from mcp.shared.message import ServerMessageMetadata
    from mcp.shared.transport_context import TransportContext

    from mcpist.protocol import modern

    unwound: list[Connection] = []
    original = modern.aclose_shielded

    async def recording(connection: Connection) -> None:
        unwound.append(connection)
        await original(connection)

    monkeypatch.setattr(modern, "aclose_shielded", recording)

    def exchange() -> modern._OneExchange:
        return modern._OneExchange(
            transport=TransportContext(kind="streamable-http", can_send_request=False),
            request_id=1,
            message_metadata=ServerMessageMetadata(),
        )

    server: Server[Any] = Server("t")
    closed: list[str] = []
    busy = Connection.from_envelope(VERSION, None, {})
    busy.exit_stack.callback(closed.append, "closed")
    # a server with no handlers: the chain refuses the method, and the stack is unwound on the way out all the same
    with pytest.raises(MCPError):
        await modern._serve_one(ServerRunner(server, busy, None), exchange(), "nothing/here", None)
    assert closed == ["closed"] and unwound == [busy]
    idle = Connection.from_envelope(VERSION, None, {})
    with pytest.raises(MCPError):
        await modern._serve_one(ServerRunner(server, idle, None), exchange(), "nothing/here", None)
    assert unwound == [busy]
