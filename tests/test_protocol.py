"""The meta-tools through a real MCP client over Streamable HTTP (in process), both protocol revisions."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from support import mcp_client, runtime

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]


def structured(result: Any) -> Any:
    return result.structured_content


@pytest.mark.parametrize("mode", MODES)
async def test_tools_list_shows_only_meta_tools_naming_modules(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt, mode) as client:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == ["get_module_schema", "call", "batch", "run_script"]
        described = tools[0].description or ""
        assert "- demo: Test tools: echo, add, wait, fail" in described
        assert "- remote:" in described
        # the module list lives in get_module_schema's description only: tools/list has no bytes to repeat it
        assert "demo" not in "".join(t.description or "" for t in tools[1:])


@pytest.mark.parametrize("mode", MODES)
async def test_get_module_schema_returns_compact_definitions(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt, mode) as client:
        result = await client.call_tool("get_module_schema", {"module": "demo"})
        assert not result.is_error
        body = structured(result)
        tools = {t["name"]: t for t in body["tools"]}
        assert set(tools) == {"echo", "add", "items", "wait", "fail", "boom"}
        echo = tools["echo"]
        assert echo["description"] == "Return the text and who called."
        assert echo["inputSchema"]["required"] == ["text"]
        assert echo["inputSchema"]["properties"]["text"]["description"] == "Text to return"
        assert echo["annotations"] == {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
        assert tools["fail"]["annotations"]["destructiveHint"] is True
        assert tools["items"]["outputSchema"]["properties"]["items"]["type"] == "array"
        text = json.dumps(body)
        assert "$ref" not in text and "$defs" not in text and '"title"' not in text


async def test_unknown_module_lists_available(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("get_module_schema", {"module": "nope"})
        assert result.is_error
        body = structured(result)
        assert body["code"] == "NOT_FOUND"
        assert "demo" in body["message"] and "remote" in body["message"]


@pytest.mark.parametrize("mode", MODES)
async def test_call_runs_a_tool_as_the_token_owner(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt, mode) as client:
        result = await client.call_tool(
            "call", {"module": "demo", "tool_name": "echo", "params": {"text": "こんにちは"}}
        )
        assert not result.is_error
        assert structured(result) == {"text": "こんにちは", "user": rt.owner.id}
        scalar = await client.call_tool("call", {"module": "demo", "tool_name": "add", "params": {"a": 2, "b": 3}})
        assert structured(scalar) == {"result": 5}


@pytest.mark.parametrize(
    ("params", "field"),
    [({}, "text"), ({"text": 5}, "text"), ({"text": "x", "extra": 1}, "extra")],
)
async def test_call_refuses_bad_params_naming_the_field(tmp_path: Path, params: dict[str, Any], field: str) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": params})
        assert result.is_error
        body = structured(result)
        assert body["code"] == "INVALID_ARGUMENT"
        assert f"'{field}'" in body["message"]
        assert body["data"]["errors"][0]["field"] == field


async def test_bad_params_run_nothing(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("call", {"module": "demo", "tool_name": "wait", "params": {"ms": -1}})
        assert structured(result)["code"] == "INVALID_ARGUMENT"


async def test_an_object_argument_sent_as_a_json_string_is_read_as_the_object(tmp_path: Path) -> None:
    # models and some clients encode a nested object twice: '{"text": "hi"}' for {"text": "hi"}
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        echoed = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": '{"text": "hi"}'})
        assert not echoed.is_error and structured(echoed)["text"] == "hi"
        source = 'def main():\n    return args["n"] * 2\n'
        doubled = await client.call_tool("run_script", {"script": source, "args": '{"n": 21}'})
        assert not doubled.is_error and "42" in json.dumps(structured(doubled))
        for bad in ("[1, 2]", "{not json", "42"):
            refused = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": bad})
            body = structured(refused)
            assert body["code"] == "INVALID_ARGUMENT" and body["data"] == {"field": "params"}, bad


async def test_meta_tool_arguments_are_checked(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": [1]})
        assert structured(result)["code"] == "INVALID_ARGUMENT"
        result = await client.call_tool("call", {"module": "demo", "tool": "echo"})
        assert structured(result)["code"] == "INVALID_ARGUMENT"
        result = await client.call_tool("call", {"module": "demo", "tool_name": "nope"})
        assert structured(result)["code"] == "NOT_FOUND"


async def test_tool_errors_carry_code_message_data(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("call", {"module": "demo", "tool_name": "fail", "params": {}})
        assert result.is_error
        assert structured(result) == {
            "code": "CONFLICT",
            "message": "stale version",
            "data": {"expected": 1, "actual": 2},
        }


async def test_unexpected_exception_never_leaks(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("call", {"module": "demo", "tool_name": "boom", "params": {}})
    assert result.is_error
    body = structured(result)
    assert body["code"] == "INTERNAL"
    request_id = body["data"]["request_id"]
    wire = json.dumps(body) + "".join(getattr(c, "text", "") for c in result.content)
    assert "secret-value" not in wire and "Traceback" not in wire and "RuntimeError" not in wire
    assert any(request_id in r.getMessage() for r in caplog.records)


async def test_missing_account_asks_the_user_to_connect(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("call", {"module": "remote", "tool_name": "whoami"})
    elicitation = UrlElicitationRequiredError.from_error(raised.value.error).elicitations[0]
    assert "/connect/remote?" in elicitation.url


async def test_timeout_is_deadline_exceeded(tmp_path: Path) -> None:
    async with runtime(tmp_path, call_timeout_s=0.05) as rt, mcp_client(rt) as client:
        result = await client.call_tool("call", {"module": "demo", "tool_name": "wait", "params": {"ms": 5000}})
        assert structured(result)["code"] == "DEADLINE_EXCEEDED"


async def test_a_call_cancelled_from_outside_is_cancelled_not_out_of_time(tmp_path: Path) -> None:
    """The call's deadline is asyncio's; a cancel scope around the call (a client gone, a task cancelled)
    must still cancel it, never be reported as the deadline, and leave the next call its full time."""
    import anyio

    from mcpist.modules import Caller

    async with runtime(tmp_path, call_timeout_s=5) as rt:
        principal = await rt.principal(Caller(user_id=rt.owner.id, email=rt.owner.email))
        with anyio.move_on_after(0.05) as scope:
            await rt.execute(principal, "demo", "wait", {"ms": 2000})
        assert scope.cancelled_caught  # cancelled by the scope, not turned into DEADLINE_EXCEEDED
        with anyio.fail_after(2):
            assert await rt.execute(principal, "demo", "wait", {"ms": 10}) == {"waited_ms": 10}


async def test_unknown_meta_tool_is_a_protocol_error(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        with pytest.raises(MCPError):
            await client.call_tool("echo", {})


@pytest.mark.parametrize("mode", MODES)
async def test_batch_runs_dependent_tasks(tmp_path: Path, mode: str) -> None:
    tasks = "\n".join(
        [
            json.dumps({"id": "list", "module": "demo", "tool": "items", "params": {"count": 4}}),
            json.dumps(
                {
                    "id": "first_open",
                    "module": "demo",
                    "tool": "echo",
                    "params": {"text": "${list.items[?status=='open'] | [1].id}"},
                    "after": "list",
                    "output": True,
                }
            ),
            json.dumps({"id": "bad", "module": "demo", "tool": "fail", "params": {}}),
            json.dumps({"id": "after_bad", "module": "demo", "tool": "add", "params": {"a": 1}, "after": ["bad"]}),
        ]
    )
    async with runtime(tmp_path) as rt, mcp_client(rt, mode) as client:
        result = await client.call_tool("batch", {"tasks": tasks})
        body = structured(result)
        assert body["results"] == {"first_open": {"text": "i2", "user": rt.owner.id}}
        assert body["failed"]["bad"]["code"] == "CONFLICT"
        assert "after_bad" in body["skipped"]
        assert "list" not in body["results"]


async def test_batch_refuses_unknown_tool_before_running(tmp_path: Path) -> None:
    tasks = "\n".join(
        [
            json.dumps({"id": "a", "module": "demo", "tool": "wait", "params": {"ms": 1}}),
            json.dumps({"id": "b", "module": "demo", "tool": "nope", "params": {}}),
        ]
    )
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("batch", {"tasks": tasks})
        assert result.is_error
        assert structured(result)["code"] == "NOT_FOUND"


async def test_batch_guide_is_served(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        result = await client.call_tool("get_module_schema", {"module": "batch"})
        assert "hash_join" in structured(result)["guide"]


def test_header_checks_get_a_schema_only_where_a_parameter_declares_a_header() -> None:
    from mcpist.protocol.metatools import _declares_headers, header_checked_schema, meta_tools

    listed = {t.name: t.input_schema for t in meta_tools([], "any", "any")}
    assert listed and all(not _declares_headers(schema) for schema in listed.values())
    assert all(header_checked_schema(name) is None for name in listed)
    assert header_checked_schema("no_such_tool") is None
    nested = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"x-mcp-header": "B"}}}}}
    assert _declares_headers(nested)
    assert _declares_headers({"anyOf": [{"type": "string"}, {"x-mcp-header": "C"}]})


async def test_a_tool_named_with_its_module_runs_and_a_misspelt_one_gets_close_names(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        for name in ("demo.echo", "demo__echo", "demo/echo"):
            echoed = await client.call_tool("call", {"module": "demo", "tool_name": name, "params": {"text": "hi"}})
            assert not echoed.is_error and structured(echoed)["text"] == "hi", name
        misspelt = structured(await client.call_tool("call", {"module": "demo", "tool_name": "ecko", "params": {}}))
        assert misspelt["code"] == "NOT_FOUND"
        assert misspelt["message"] == "unknown tool 'ecko' in module 'demo'; did you mean 'echo'?"
        nothing = structured(await client.call_tool("call", {"module": "demo", "tool_name": "zzzz", "params": {}}))
        assert nothing["message"] == "unknown tool 'zzzz' in module 'demo'"


async def test_the_identity_stamped_on_results_is_the_sdks_in_a_fresh_copy(tmp_path: Path) -> None:
    from mcp.server import Server

    from mcpist.modules.api import Caller
    from mcpist.protocol.server import build_server

    async with runtime(tmp_path) as rt:
        server = build_server(rt, lambda _ctx: Caller(user_id="tester"))
    sdk_stamp = Server.server_info_stamp.fget(server)  # type: ignore[attr-defined]  # mypy types a property as a callable
    first = server.server_info_stamp
    assert first == sdk_stamp and first["name"] == "mcpist"
    first["name"] = "changed by a handler"
    assert server.server_info_stamp == sdk_stamp
    # an identity with a nested value (icons) gets the SDK's deep copy
    server.__dict__["_flat_stamp"] = None
    nested = server.server_info_stamp
    assert nested == sdk_stamp and nested is not sdk_stamp
