"""Tool Sieve through a real MCP client: what a role hides is absent everywhere and refused everywhere."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from demo_module import demo, remote
from mcpist.errors import NotFound
from mcpist.modules import Module, ToolContext
from mcpist.modules.api import Caller
from mcpist.runtime import Runtime
from mcpist.sieve import create_role, grant_role, list_security_events, revoke_role
from mcpist.sieve._tables import security_events
from mcpist.storage.tables import users
from sieve_support import create_token
from support import mcp_client, runtime

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]
ALICE = "alice@example.com"
SECRET = "secret-argument-value-0451"


async def add_user(engine: AsyncEngine, email: str) -> str:
    user_id = str(uuid.uuid4())
    async with engine.begin() as conn:
        await conn.execute(users.insert().values(id=user_id, email=email, created_at=datetime.now(UTC)))
    return user_id


async def limited_alice(rt: Runtime) -> tuple[str, str, str]:
    """Alice may use every demo tool but `boom`, and nothing of `remote`; returns (user id, token id, token)."""
    user_id = await add_user(rt.engine, ALICE)
    await create_role(rt.engine, "limited", ["demo.*"], ["demo.boom"], registry=rt.registry)
    await grant_role(rt.engine, ALICE, "limited")
    info, token = await create_token(rt.engine, "alice-laptop", email=ALICE)
    return user_id, info.id, token


def canon(result: Any) -> str:
    """The whole tool result as the client received it, as canonical JSON."""
    return json.dumps(result.model_dump(mode="json", by_alias=True), sort_keys=True, ensure_ascii=False)


def same_answer(hidden: Any, missing: Any, hidden_name: str, missing_name: str) -> None:
    text = canon(hidden)
    assert text.replace(hidden_name, "<NAME>") == canon(missing).replace(missing_name, "<NAME>")
    assert missing_name not in text and hidden.is_error


def batch_text(module: str, tool: str) -> str:
    return "\n".join(
        [
            json.dumps({"id": "a", "module": "demo", "tool": "echo", "params": {"text": "x"}}),
            json.dumps({"id": "b", "module": module, "tool": tool, "params": {"token": SECRET}, "after": "a"}),
        ]
    )


@pytest.mark.parametrize("mode", MODES)
async def test_hidden_tools_are_invisible_and_refused_through_every_path(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path) as rt:
        alice_id, token_id, token = await limited_alice(rt)
        async with mcp_client(rt, mode, token) as client:
            # tools/list: the meta-tool descriptions name only what alice may use
            listed = (await client.list_tools()).tools
            described = " ".join(t.description or "" for t in listed)
            assert "- demo:" in described and "remote" not in described

            # get_module_schema: the hidden tool is absent; the hidden module answers as a missing one
            schema = await client.call_tool("get_module_schema", {"module": "demo"})
            assert {t["name"] for t in schema.structured_content["tools"]} == set(demo.tools) - {"boom"}
            assert "boom" not in canon(schema)
            same_answer(
                await client.call_tool("get_module_schema", {"module": "remote"}),
                await client.call_tool("get_module_schema", {"module": "zzzzzz"}),
                "remote",
                "zzzzzz",
            )

            # call: a hidden tool, and a tool of a hidden module, answer as missing ones
            def call(module: str, tool: str) -> dict[str, Any]:
                return {"module": module, "tool_name": tool, "params": {"token": SECRET}}

            hidden = await client.call_tool("call", call("demo", "boom"))
            assert hidden.structured_content["code"] == "NOT_FOUND"
            same_answer(hidden, await client.call_tool("call", call("demo", "zzzz")), "boom", "zzzz")
            same_answer(
                await client.call_tool("call", call("remote", "whoami")),
                await client.call_tool("call", call("zzzzzz", "whoami")),
                "remote",
                "zzzzzz",
            )

            # batch: refused before anything runs, exactly as a missing tool
            in_batch = await client.call_tool("batch", {"tasks": batch_text("demo", "boom")})
            assert in_batch.structured_content["data"] == {"module": "demo", "tool": "boom", "line": 2, "task": "b"}
            same_answer(
                in_batch, await client.call_tool("batch", {"tasks": batch_text("demo", "zzzz")}), "boom", "zzzz"
            )

            allowed = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": {"text": "hi"}})
            assert allowed.structured_content == {"text": "hi", "user": alice_id}

        events = await list_security_events(rt.engine)
        seen = [(e.kind, e.via, e.module, e.tool) for e in reversed(events)]
        assert seen == [
            ("hidden_tool_call", "call", "demo", "boom"),
            ("unknown_tool_call", "call", "demo", "zzzz"),
            ("hidden_tool_call", "call", "remote", "whoami"),
            ("unknown_tool_call", "call", "zzzzzz", "whoami"),
            ("hidden_tool_call", "batch", "demo", "boom"),
            ("unknown_tool_call", "batch", "demo", "zzzz"),
        ]
        assert {(e.user_id, e.email, e.token_id, e.token_name) for e in events} == {
            (alice_id, ALICE, token_id, "alice-laptop")
        }
        assert all((datetime.now(UTC) - e.at).total_seconds() < 600 for e in events)
        async with rt.engine.connect() as conn:
            stored = repr((await conn.execute(sa.select(security_events))).all())
        assert SECRET not in stored and "token" not in stored.replace("token_id", "")


async def test_scripts_reach_tools_through_execute_under_the_same_rules(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        alice_id, token_id, _ = await limited_alice(rt)
        caller = Caller(user_id=alice_id, email=ALICE, token_id=token_id)
        principal = await rt.principal(caller)
        with pytest.raises(NotFound) as hidden:
            await rt.execute(principal, "demo", "boom", {"token": SECRET}, via="script")
        with pytest.raises(NotFound) as missing:
            await rt.execute(caller, "demo", "zzzz", {"token": SECRET}, via="script")
        assert json.dumps(hidden.value.to_dict()).replace("boom", "N") == json.dumps(missing.value.to_dict()).replace(
            "zzzz", "N"
        )
        assert await rt.execute(caller, "demo", "add", {"a": 2, "b": 3}, via="script") == 5
        events = await list_security_events(rt.engine)
        assert [(e.kind, e.via, e.tool) for e in events] == [
            ("unknown_tool_call", "script", "zzzz"),
            ("hidden_tool_call", "script", "boom"),
        ]


async def test_a_user_without_roles_sees_and_runs_nothing(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await add_user(rt.engine, "bob@example.com")
        _, token = await create_token(rt.engine, "bob", email="bob@example.com")
        async with mcp_client(rt, token=token) as client:
            listed = (await client.list_tools()).tools
            assert "(no modules available)" in (listed[0].description or "")
            result = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": {"text": "x"}})
            assert result.structured_content["message"] == "unknown module 'demo'; available: (none)"


async def test_the_owner_sees_every_tool_with_zero_configuration(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        for module in (demo, remote):
            schema = await client.call_tool("get_module_schema", {"module": module.name})
            assert {t["name"] for t in schema.structured_content["tools"]} == set(module.tools)
        assert await list_security_events(rt.engine) == []


async def test_a_narrowed_token_keeps_only_its_roles_the_user_still_holds(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await add_user(rt.engine, ALICE)
        await create_role(rt.engine, "echoer", ["demo.echo"])
        await create_role(rt.engine, "reader", ["demo.@read"])
        await grant_role(rt.engine, ALICE, "echoer")
        await grant_role(rt.engine, ALICE, "reader")
        _, narrow = await create_token(rt.engine, "narrow", email=ALICE, roles=["echoer"])

        async def tools_seen() -> set[str]:
            async with mcp_client(rt, token=narrow) as client:
                result = await client.call_tool("get_module_schema", {"module": "demo"})
                if result.is_error:
                    return set()
                return {t["name"] for t in result.structured_content["tools"]}

        assert await tools_seen() == {"echo"}
        await revoke_role(rt.engine, ALICE, "echoer")
        assert await tools_seen() == set()


docs_module = Module(
    "documented", summary="Two tools and docs naming both", docs="Use `visible_one`, then `secret_two`."
)


@docs_module.tool(read_only=True)
async def visible_one(ctx: ToolContext[Any]) -> int:
    """One."""
    return 1


@docs_module.tool(destructive=True)
async def secret_two(ctx: ToolContext[Any]) -> int:
    """Two."""
    return 2


async def test_module_docs_go_only_to_callers_who_see_every_tool(tmp_path: Path) -> None:
    async with runtime(tmp_path, modules=[docs_module]) as rt:
        await add_user(rt.engine, ALICE)
        await create_role(rt.engine, "reads", ["documented.@read"], registry=rt.registry)
        await grant_role(rt.engine, ALICE, "reads")
        _, token = await create_token(rt.engine, "alice", email=ALICE)
        async with mcp_client(rt, token=token) as client:
            partial = await client.call_tool("get_module_schema", {"module": "documented"})
        assert "secret_two" not in canon(partial) and "docs" not in partial.structured_content
        async with mcp_client(rt) as client:
            full = await client.call_tool("get_module_schema", {"module": "documented"})
        assert full.structured_content["docs"] == docs_module.docs
