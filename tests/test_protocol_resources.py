"""Resources, completions, logging and progress through a real MCP client, and the accounts
`get_module_schema` names."""

from __future__ import annotations

import base64
import warnings
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from demo_module import demo, remote
from mcpist.auth.tokens import TokenStore
from mcpist.modules import Module, ToolContext
from mcpist.sieve import create_role, grant_role, list_security_events
from mcpist.sieve.cli import prepare_token
from support import mcp_client, runtime

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]

talk = Module("talk", summary="Tools that report progress and log")


@talk.tool(read_only=True)
async def work(ctx: ToolContext[Any], steps: int = 3) -> dict[str, int]:
    """Work in steps, reporting each and logging."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
    await ctx.log("info", "worked", steps=steps)
    ctx.logger.warning("a server log line during the call")
    ctx.logger.debug("too detailed for the client's level")
    return {"steps": steps}


@pytest.mark.parametrize("mode", MODES)
async def test_resources_and_templates_are_listed_and_read(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt, mode) as client:
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["demo://echo/{text}"]
        assert templates[0].name == "demo.echo_resource" and templates[0].description == "The text, as a resource."
        listed = [r.uri for r in (await client.list_resources()).resources]
        assert listed == ["demo://about", "remote://whoami"]

        read = await client.read_resource("demo://echo/hello%20there")
        (text,) = read.contents
        assert isinstance(text, types.TextResourceContents)
        assert text.text == f"hello there (read by {rt.owner.id})" and text.mime_type == "text/plain"
        (blob,) = (await client.read_resource("demo://about")).contents
        assert isinstance(blob, types.BlobResourceContents) and base64.b64decode(blob.blob) == b"\x00demo"

        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("demo://nothing/here")


async def test_a_resource_is_visible_exactly_when_its_tool_is(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await create_role(rt.engine, "adder", ["demo.add"])
        await grant_role(rt.engine, rt.owner.email, "adder")
        new = await prepare_token(rt.engine, roles=["adder"])
        _, token = await TokenStore(rt.engine).create("narrow", new.user_id, then=new.narrow)
        async with mcp_client(rt, token=token) as client:
            assert [t.uri_template for t in (await client.list_resource_templates()).resource_templates] == []
            assert [r.uri for r in (await client.list_resources()).resources] == ["demo://about"]
            with pytest.raises(MCPError) as hidden:
                await client.read_resource("demo://echo/hi")
            with pytest.raises(MCPError) as missing:
                await client.read_resource("demo://echoes/hi")
            assert hidden.value.error.code == missing.value.error.code
            with pytest.raises(MCPError, match="unknown resource template"):
                await client.complete(
                    types.ResourceTemplateReference(uri="demo://echo/{text}"), {"name": "text", "value": "he"}
                )
        events = await list_security_events(rt.engine, 10)
        assert [(e.module, e.tool, e.via) for e in events if e.kind == "hidden_tool_call"] == [
            ("demo", "echo", "resource")
        ]


@pytest.mark.parametrize("mode", MODES)
async def test_completion_of_template_variables_and_prompt_arguments(tmp_path: Path, mode: str) -> None:
    from mcpist.modules.context import module as context

    async with runtime(tmp_path, [demo, remote, context]) as rt, mcp_client(rt, mode) as client:
        done = await client.complete(
            types.ResourceTemplateReference(uri="demo://echo/{text}"), {"name": "text", "value": "he"}
        )
        assert done.completion.values == ["hello", "help"]
        started = await client.call_tool("call", {"module": "context", "tool_name": "start_session"})
        session_id = started.structured_content["session_id"]
        prompt = types.PromptReference(name="context_session")
        found = await client.complete(prompt, {"name": "session_id", "value": session_id[:4]})
        assert found.completion.values == [session_id]
        assert (await client.complete(prompt, {"name": "session_id", "value": "zzzz"})).completion.values == []


async def set_level(client: Any, level: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)  # deprecated on 2026-07-28, current on 2025-11-25
        await client.set_logging_level(level)


async def test_log_lines_and_progress_reach_a_2025_client_at_its_level(tmp_path: Path) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with runtime(tmp_path, [demo, remote, talk]) as rt, mcp_client(rt, logging_callback=on_log) as client:
        args = {"module": "talk", "tool_name": "work", "params": {"steps": 2}}
        await client.call_tool("call", args)
        assert logs == []  # nothing before the client asks
        await set_level(client, "info")
        result = await client.call_tool("call", args, progress_callback=on_progress)
        assert result.structured_content == {"steps": 2}
        assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
        assert [(m.level, m.logger, m.data) for m in logs] == [
            ("info", "mcpist.modules.talk", {"message": "worked", "steps": 2}),
            ("warning", "mcpist.modules.talk", "a server log line during the call"),
        ]
        logs.clear()
        await set_level(client, "error")
        await client.call_tool("call", args)
        assert logs == []


@pytest.mark.parametrize("mode", MODES)
async def test_get_module_schema_names_the_callers_accounts(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt, mode) as client:
        broker: Any = rt.accounts
        body = (await client.call_tool("get_module_schema", {"module": "remote"})).structured_content
        assert body["accounts"] == {"names": [], "default": None}
        await broker.accounts.put(
            service="remote", name="work", kind="api_key", secrets={"api_key": "K1"}, user_id=rt.owner.id
        )
        await broker.accounts.put(
            service="remote", name="home", kind="api_key", secrets={"api_key": "K2"}, user_id=rt.owner.id
        )
        body = (await client.call_tool("get_module_schema", {"module": "remote"})).structured_content
        assert body["accounts"] == {"names": ["home", "work"], "default": None}  # two, neither is "default"
        assert "K1" not in str(body) and "K2" not in str(body)
        demo_body = (await client.call_tool("get_module_schema", {"module": "demo"})).structured_content
        assert "accounts" not in demo_body


@pytest.mark.parametrize("mode", MODES)
async def test_a_large_module_answers_with_an_index_then_the_tools_asked_for(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path, schema_index_bytes=200) as rt, mcp_client(rt, mode) as client:
        index = (await client.call_tool("get_module_schema", {"module": "demo"})).structured_content
        assert "tools" not in index and "get_module_schema again with tools" in index["next"]
        assert [e["name"] for e in index["index"]] == ["echo", "add", "items", "wait", "fail", "boom"]
        assert set(index["index"][0]) == {"name", "description", "annotations"}
        chosen = await client.call_tool("get_module_schema", {"module": "demo", "tools": ["items", "echo"]})
        body = chosen.structured_content
        assert [t["name"] for t in body["tools"]] == ["items", "echo"]
        assert "inputSchema" in body["tools"][1] and "outputSchema" in body["tools"][0]
        missing = await client.call_tool("get_module_schema", {"module": "demo", "tools": ["nope"]})
        assert missing.is_error and missing.structured_content["code"] == "NOT_FOUND"
        # a name, names with commas, or the list encoded twice: what models send for a list of strings
        for sent in ("echo", "items, echo", '["items", "echo"]'):
            named = await client.call_tool("get_module_schema", {"module": "demo", "tools": sent})
            assert [t["name"] for t in named.structured_content["tools"]][-1] == "echo", sent
        for bad_value in (5, "[not json", "", [1]):
            bad = await client.call_tool("get_module_schema", {"module": "demo", "tools": bad_value})
            assert bad.is_error and bad.structured_content["code"] == "INVALID_ARGUMENT", bad_value


async def test_a_hidden_tool_asked_for_by_name_is_unknown(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await create_role(rt.engine, "adder", ["demo.add"])
        await grant_role(rt.engine, rt.owner.email, "adder")
        new = await prepare_token(rt.engine, roles=["adder"])
        _, token = await TokenStore(rt.engine).create("narrow", new.user_id, then=new.narrow)
        async with mcp_client(rt, token=token) as client:
            hidden = await client.call_tool("get_module_schema", {"module": "demo", "tools": ["echo"]})
            missing = await client.call_tool("get_module_schema", {"module": "demo", "tools": ["nope"]})
            shown = await client.call_tool("get_module_schema", {"module": "demo", "tools": ["add"]})
    assert hidden.structured_content["message"].replace("echo", "X") == missing.structured_content["message"].replace(
        "nope", "X"
    )
    assert [t["name"] for t in shown.structured_content["tools"]] == ["add"]
