"""URL elicitation when a tool needs an account that is not connected yet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from mcpist.errors import ConnectRequired
from mcpist.modules.api import Account, AccountChoice, Caller, Module, ResolvedAccount
from mcpist.testing import FakeCredentials
from support import BASE, SseOpened, http_client, new_token, runtime, served, sse_watch

pytestmark = pytest.mark.anyio

CONNECT_URL = f"{BASE}/connect/remote?state=abc"


class SwitchableAccounts:
    """Not connected until `connect()`; then resolves every call to one account."""

    def __init__(self) -> None:
        self.connected = False

    def connect(self) -> None:
        self.connected = True

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> ResolvedAccount | None:
        if not self.connected:
            raise ConnectRequired(
                f"connect your {module.name} account to continue",
                service=module.name,
                connect_url=CONNECT_URL,
                elicitation_id="el-1",
            )
        return ResolvedAccount(Account(service=module.name, name=account or "default"), FakeCredentials("s3cr3t"))

    async def usable(self, caller: Caller, module: Module) -> AccountChoice:
        return AccountChoice(("default",) if self.connected else (), "default" if self.connected else None)


async def test_2025_11_25_gets_32042_then_elicitation_complete(tmp_path: Path) -> None:
    with sse_watch() as stream:
        await _elicit_then_complete(tmp_path, stream)


async def _elicit_then_complete(tmp_path: Path, stream: SseOpened) -> None:
    accounts = SwitchableAccounts()
    completed = anyio.Event()
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            seen.append(message.params.elicitation_id)
            completed.set()

    async with runtime(tmp_path) as rt:
        rt.accounts = accounts
        token = await new_token(rt)
        async with (
            served(rt) as url,
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy", message_handler=on_message) as client,
        ):
            with pytest.raises(MCPError) as raised:
                await client.call_tool("call", {"module": "remote", "tool_name": "whoami"})
            error = UrlElicitationRequiredError.from_error(raised.value.error)
            assert error.error.code == -32042
            assert error.elicitations[0].url == CONNECT_URL
            assert error.elicitations[0].elicitation_id == "el-1"
            accounts.connect()
            with anyio.fail_after(10):
                await stream.opened.wait()
            assert await rt.elicitations.complete("el-1")
            with anyio.fail_after(10):
                await completed.wait()
            assert seen == ["el-1"]
            result = await client.call_tool("call", {"module": "remote", "tool_name": "whoami"})
            assert result.structured_content == {"account": "default"}


async def test_2026_07_28_gets_input_required_and_retries(tmp_path: Path) -> None:
    accounts = SwitchableAccounts()
    asked: list[types.ElicitRequestParams] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        accounts.connect()  # the user finished in the browser
        return types.ElicitResult(action="accept")

    async with runtime(tmp_path) as rt:
        rt.accounts = accounts
        token = await new_token(rt)
        async with (
            http_client(rt, token) as http,
            Client(
                streamable_http_client(f"{BASE}/mcp", http_client=http),
                mode="2026-07-28",
                elicitation_callback=on_elicit,
            ) as client,
        ):
            result = await client.call_tool("call", {"module": "remote", "tool_name": "whoami", "account": "work"})
    assert len(asked) == 1
    assert isinstance(asked[0], types.ElicitRequestURLParams) and asked[0].url == CONNECT_URL
    assert result.structured_content == {"account": "work"}


async def test_connect_required_inside_batch_is_a_task_failure(tmp_path: Path) -> None:
    import json

    from support import mcp_client

    async with runtime(tmp_path) as rt:
        rt.accounts = SwitchableAccounts()
        async with mcp_client(rt) as client:
            line = json.dumps({"id": "w", "module": "remote", "tool": "whoami", "params": {}})
            result = await client.call_tool("batch", {"tasks": line})
    failure = result.structured_content["failed"]["w"]
    assert failure["code"] == "UNAUTHENTICATED"
    assert failure["data"]["connect_url"] == CONNECT_URL
