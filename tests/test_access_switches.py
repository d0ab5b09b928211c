"""Two switches an admin throws for everyone, through a real MCP client: a module switched off is absent
and refused on every path (tools/list, get_module_schema, call, batch, run_script, resources, prompts'
module list), and a disabled user's OAuth access token and API token are refused at the next request."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from demo_module import demo, remote
from mcpist.auth.tokens import TokenStore
from mcpist.auth.users import add_user, set_disabled
from mcpist.config import AuthSettings
from mcpist.errors import Conflict, NotFound
from mcpist.sieve import list_disabled_modules, set_module_enabled
from oauth_support import PASSWORD, authorize, browser, compose_app, exchange, mcp_status, register
from support import mcp_client, runtime, served

pytestmark = pytest.mark.anyio


async def test_a_switched_off_module_is_absent_and_refused_everywhere(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, mcp_client(rt) as client:
        assert await set_module_enabled(rt.engine, "demo", False, registry=rt.registry)
        assert not await set_module_enabled(rt.engine, "demo", False, registry=rt.registry)  # already off
        assert await list_disabled_modules(rt.engine) == {"demo"}
        rt.forget_access()

        described = " ".join(t.description or "" for t in (await client.list_tools()).tools)
        assert "- remote:" in described and "- demo:" not in described
        schema = await client.call_tool("get_module_schema", {"module": "demo"})
        assert schema.is_error and schema.structured_content is not None
        assert schema.structured_content["code"] == "NOT_FOUND"
        called = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": {"text": "x"}})
        assert called.is_error and called.structured_content is not None
        assert called.structured_content["message"] == "unknown module 'demo'; available: remote"
        line = json.dumps({"id": "a", "module": "demo", "tool": "add", "params": {"a": 1, "b": 2}, "output": True})
        batch = await client.call_tool("batch", {"tasks": line})
        assert batch.is_error and batch.structured_content is not None
        assert batch.structured_content["code"] == "NOT_FOUND"
        source = "def main():\n    return call('demo', 'add', {'a': 1, 'b': 2})\n"
        script = await client.call_tool("run_script", {"script": source})
        assert script.is_error and "demo" in json.dumps(script.structured_content)
        assert not [t for t in (await client.list_resource_templates()).resource_templates if "demo" in t.uriTemplate]
        assert not [r for r in (await client.list_resources()).resources if str(r.uri).startswith("demo:")]
        with pytest.raises(Exception, match="unknown resource"):
            await client.read_resource("demo://about")

        # on again: the roles decide once more
        assert await set_module_enabled(rt.engine, "demo", True, registry=rt.registry)
        rt.forget_access()
        again = await client.call_tool("call", {"module": "demo", "tool_name": "add", "params": {"a": 1, "b": 2}})
        assert not again.is_error and again.structured_content == {"result": 3}
        with pytest.raises(NotFound):
            await set_module_enabled(rt.engine, "nosuch", False, registry=rt.registry)


async def test_a_disabled_users_tokens_stop_working_at_the_next_request(tmp_path: Path) -> None:
    async with runtime(tmp_path, [demo, remote]) as rt:
        bob = await add_user(rt.engine, "bob@example.com", "user", PASSWORD)
        _, api_token = await TokenStore(rt.engine).create("bob-laptop", bob.id)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            code, verifier = await authorize(http, client["client_id"], "bob@example.com")
            tokens = await exchange(http, client["client_id"], code, verifier)
            assert tokens.status_code == 200, tokens.text
            access = tokens.json()["access_token"]
            assert await mcp_status(http, access) == 200
            assert await mcp_status(http, api_token) == 200

            assert await set_disabled(rt.engine, bob.id, True)
            assert await mcp_status(http, access) == 401
            assert await mcp_status(http, api_token) == 401
            # nor can the refresh token mint a new access token, nor can bob sign in again
            refreshed = await http.post(
                "/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": tokens.json()["refresh_token"],
                    "client_id": client["client_id"],
                },
            )
            assert refreshed.status_code == 400
            page = await http.get("/oauth/login")
            form = {"csrf": page.text.split('name="csrf" value="')[1].split('"')[0], "email": "bob@example.com"}
            refused = await http.post("/oauth/login", data={**form, "password": PASSWORD})
            assert refused.status_code == 403 and "This account is disabled" in refused.text

            assert await set_disabled(rt.engine, bob.id, False)
            assert await mcp_status(http, api_token) == 200
        with pytest.raises(Conflict):
            await set_disabled(rt.engine, rt.owner.id, True)


async def test_a_disabled_user_is_refused_by_a_real_mcp_client(tmp_path: Path) -> None:
    statuses: list[int] = []

    async def seen(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    async with runtime(tmp_path) as rt:
        bob = await add_user(rt.engine, "bob@example.com", "user")
        _, token = await TokenStore(rt.engine).create("bob-client", bob.id)
        async with (
            served(rt) as url,
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token}"}, timeout=30, event_hooks={"response": [seen]}
            ) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            assert len((await client.list_tools()).tools) == 4
            await set_disabled(rt.engine, bob.id, True)
            statuses.clear()
            with pytest.raises(MCPError):
                await client.list_tools()
            assert 401 in statuses
