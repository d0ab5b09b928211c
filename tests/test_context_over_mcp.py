"""The context module through a real MCP client: prompts/list, prompts/get, and MCP sampling."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcpist.modules.registry import Registry
from support import mcp_client, new_token, runtime, served

pytestmark = pytest.mark.anyio


def context_module() -> list[Any]:
    return [Registry.from_entry_points(enabled=["context"]).module("context")]


async def call(client: Client, tool: str, **params: Any) -> Any:
    result = await client.call_tool("call", {"module": "context", "tool_name": tool, "params": params})
    assert not result.is_error, result.structured_content
    return result.structured_content


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_session_prompt_is_an_mcp_prompt(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path, modules=context_module()) as rt, mcp_client(rt, mode) as client:
        session_id = (await call(client, "start_session"))["session_id"]
        await call(client, "add_turn", session_id=session_id, message="京都で3泊の旅行を計画したい")
        await call(client, "add_turn", session_id=session_id, message="予算は30万円以内で")
        await call(client, "add_turn", session_id=session_id, message="やっぱり予算は50万円で")
        prompts = (await client.list_prompts()).prompts
        generic = next(p for p in prompts if p.name == "context_session")
        assert [a.name for a in generic.arguments or []] == ["session_id"]
        got = await client.get_prompt("context_session", {"session_id": session_id})
        text = "\n".join(m.content.text for m in got.messages if isinstance(m.content, types.TextContent))
        assert "京都" in text and "50万円" in text
        constraints = text.split("制約", 1)[-1] if "制約" in text else text
        assert "30万円" not in constraints.split("会話")[0]


async def test_other_users_sessions_are_not_prompts(tmp_path: Path) -> None:
    from mcpist.auth.users import add_user
    from mcpist.sieve.cli import grant_role
    from sieve_support import create_token

    async with runtime(tmp_path, modules=context_module()) as rt:
        async with mcp_client(rt) as owner:
            session_id = (await call(owner, "start_session"))["session_id"]
        await add_user(rt.engine, "owner@example.com")  # takes over the owner placeholder
        other = await add_user(rt.engine, "eve@example.com", "user")
        await grant_role(rt.engine, other.email, "admin")
        _, token = await create_token(rt.engine, "eve", email=other.email)
        async with mcp_client(rt, token=token) as eve:
            names = [p.name for p in (await eve.list_prompts()).prompts]
            assert not any(session_id in name for name in names)
            from mcp.shared.exceptions import MCPError

            with pytest.raises(MCPError):
                await eve.get_prompt("context_session", {"session_id": session_id})


async def test_classifier_uses_the_clients_llm_through_sampling(tmp_path: Path) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append(params)
        answer = {"intent": ["CONSTRAINT_ADDITION"], "reason": "adds a budget limit"}
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=json.dumps(answer)), model="fake"
        )

    from mcpist.config import load_settings
    from mcpist.runtime import start_runtime

    cfg = load_settings(
        data_dir=tmp_path, modules={"settings": {"context": {"classifier": "llm", "llm_backend": "sampling"}}}
    )
    async with start_runtime(cfg, Registry(context_module())) as rt:
        token = await new_token(rt)
        async with (
            served(rt) as url,
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy", sampling_callback=sample) as client,
        ):
            session_id = (await call(client, "start_session"))["session_id"]
            turn = await call(client, "add_turn", session_id=session_id, message="hello there")
    assert len(asked) == 1
    assert (asked[0].temperature or 0) <= 0.1
    assert turn["classification"]["intent"] == ["CONSTRAINT_ADDITION"]
    assert turn["classification"]["reason"] == "adds a budget limit"
