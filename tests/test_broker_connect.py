"""Connecting accounts: URL elicitation from a tool call, the browser flow (PKCE, state bound
to the user, single use), the callback, and `notifications/elicitation/complete`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from starlette.requests import Request

from mcpist.errors import ConnectRequired
from mcpist.modules.api import Caller
from mcpist.vault.tables import connect_flows
from support import BASE, mcp_client, new_token, sse_watch
from vault_support import (
    Env,
    add_user,
    browser_connect,
    fingerprint,
    relative,
    served,
    vault_env,
    web_client,
)

pytestmark = pytest.mark.anyio


async def connect_url(env: Env, service: str = "gh", name: str | None = None, user_id: str | None = None) -> str:
    with pytest.raises(ConnectRequired) as raised:
        await env.broker.resolve(Caller(user_id or env.owner.user_id), env.module(service), name)
    return raised.value.connect_url


async def test_tool_call_elicits_connect_url_then_completes_2025_11_25(tmp_path: Path, database_url: str) -> None:
    completed = anyio.Event()
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            seen.append(message.params.elicitation_id)
            completed.set()

    async with vault_env(tmp_path, database_url) as env:
        token = await new_token(env.rt)
        with sse_watch() as sse:
            async with (
                served(env) as base,
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
                httpx2.AsyncClient(base_url=base, timeout=30) as browser,
                Client(
                    streamable_http_client(f"{base}/mcp", http_client=http), mode="legacy", message_handler=on_message
                ) as client,
            ):
                args = {"module": "gh", "tool_name": "whoami", "account": "work"}
                with pytest.raises(MCPError) as raised:
                    await client.call_tool("call", args)
                error = UrlElicitationRequiredError.from_error(raised.value.error)
                assert error.error.code == -32042
                elicitation = error.elicitations[0]
                assert elicitation.url.startswith(f"{base}/connect/gh?t=")

                start = await browser.get(relative(elicitation.url))
                assert start.status_code == 302
                assert start.headers["cache-control"] == "no-store"
                assert start.headers["referrer-policy"] == "no-referrer"
                query = parse_qs(urlsplit(start.headers["location"]).query)
                assert query["redirect_uri"] == [f"{base}/connect/gh/callback"]
                assert query["code_challenge_method"] == ["S256"]
                cookie = start.headers["set-cookie"].lower()
                assert "httponly" in cookie and "samesite=lax" in cookie and "path=/connect/gh/callback" in cookie

                with anyio.fail_after(10):
                    await sse.opened.wait()
                done = await browser.get(relative(env.provider.authorize(start.headers["location"])))
                assert done.status_code == 200 and "is connected" in done.text
                with anyio.fail_after(10):
                    await completed.wait()
                assert seen == [elicitation.elicitation_id]

                result = await client.call_tool("call", args)
                assert result.structured_content == {
                    "account": "work",
                    "owner": "personal",
                    "token": fingerprint(env.provider.issued[0]),
                }
        info = (await env.broker.accounts.find("gh"))[0]
        assert info.label == "gh:work" and info.user_id == env.owner.user_id and info.scopes == ("repo", "user")
        assert env.provider.grants == ["authorization_code"]


async def test_2026_07_28_client_retries_after_the_browser_flow(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env, web_client(env) as browser:
        asked: list[str] = []

        async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams)
            asked.append(params.url)
            page = await browser_connect(browser, env.provider, params.url)
            assert page.status_code == 200
            return types.ElicitResult(action="accept")

        token = await new_token(env.rt)
        async with (
            web_client(env, token) as http,
            Client(
                streamable_http_client(f"{BASE}/mcp", http_client=http),
                mode="2026-07-28",
                elicitation_callback=on_elicit,
            ) as client,
        ):
            result = await client.call_tool("call", {"module": "gh", "tool_name": "whoami"})
        assert len(asked) == 1
        assert result.structured_content is not None and result.structured_content["account"] == "default"
        # the module's on_connect hook asked the API with the fresh token, and its answer is kept
        (info,) = await env.broker.accounts.find("gh")
        assert info.fields == {"seen_as": result.structured_content["token"]}


async def test_a_failing_on_connect_hook_stores_nothing(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env, web_client(env) as browser:
        env.provider.refuse_all = True  # the API refuses even the token it just issued
        url = await env.broker.connector.begin(env.owner.user_id, "gh", "work")
        page = await browser_connect(browser, env.provider, url)
        assert page.status_code >= 400 and "refused the token it just issued" in page.text
        assert await env.broker.accounts.find("gh") == []


async def test_links_and_states_are_single_use_and_bound_to_the_browser(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env, web_client(env) as browser, web_client(env) as attacker:
        url = await connect_url(env)
        start = await browser.get(relative(url))
        assert start.status_code == 302
        again = await browser.get(relative(url))
        assert again.status_code == 404 and "expired" in again.text
        callback = relative(env.provider.authorize(start.headers["location"]))

        stolen = await attacker.get(callback)  # the state and code alone are not enough
        assert stolen.status_code == 400 and "another browser" in stolen.text
        ok = await browser.get(callback)
        assert ok.status_code == 200
        replay = await browser.get(callback)
        assert replay.status_code == 404
        assert env.provider.grants == ["authorization_code"]

        wrong_service = await browser.get(relative(url).replace("/connect/gh?", "/connect/remote?"))
        assert wrong_service.status_code == 404
        bogus = await browser.get("/connect/gh/callback?state=nope&code=x")
        assert bogus.status_code == 404


async def test_declined_consent_and_a_refused_code(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env, web_client(env) as browser:
        start = await browser.get(relative(await connect_url(env)))
        state = parse_qs(urlsplit(start.headers["location"]).query)["state"][0]
        declined = await browser.get(f"/connect/gh/callback?error=access_denied&state={state}")
        assert declined.status_code == 400 and "did not grant" in declined.text
        assert await env.broker.flows.by_state(state) is None

        start = await browser.get(relative(await connect_url(env)))
        callback = env.provider.authorize(start.headers["location"])
        env.provider.codes.clear()  # the code expired at the provider
        refused = await browser.get(relative(callback))
        assert refused.status_code == 400 and "invalid_grant" in refused.text
        assert await env.broker.accounts.find("gh") == []


async def test_the_signed_in_browser_user_must_match_when_sessions_exist(tmp_path: Path) -> None:
    browser_user: list[str | None] = [None]

    async def session_user(request: Request) -> str | None:
        return browser_user[0]

    async with vault_env(tmp_path) as env, web_client(env, session_user=session_user) as browser:
        other = await add_user(env.rt.engine, "other@example.com")
        url = await connect_url(env)
        assert (await browser.get(relative(url))).status_code == 401
        browser_user[0] = other
        wrong = await browser.get(relative(url))
        assert wrong.status_code == 403 and "another MCPist user" in wrong.text
        browser_user[0] = env.owner.user_id
        assert (await browser_connect(browser, env.provider, url)).status_code == 200


async def test_type_a_key_is_pasted_into_the_servers_own_form(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env, web_client(env) as browser:
        url = await connect_url(env, "remote", "work")
        form = await browser.get(relative(url))
        assert (
            form.status_code == 200
            and 'type="password" name="secret"' in form.text
            and "form-action 'self'" in str(form.headers["content-security-policy"])
        )
        t = parse_qs(urlsplit(url).query)["t"][0]
        cross = await browser.post(
            "/connect/remote", data={"t": t, "secret": "PASTED-KEY"}, headers={"origin": "https://evil.example"}
        )
        assert cross.status_code == 403
        saved = await browser.post("/connect/remote", data={"t": t, "secret": "  PASTED-KEY\n"})
        assert saved.status_code == 200 and "PASTED-KEY" not in saved.text
        again = await browser.post("/connect/remote", data={"t": t, "secret": "OTHER"})
        assert again.status_code == 404
        account = await env.broker.resolve(env.owner, env.module("remote"), "work")
        assert account is not None and account.credentials.secret == "PASTED-KEY"
        empty_url = await connect_url(env, "remote", "spare")
        t2 = parse_qs(urlsplit(empty_url).query)["t"][0]
        empty = await browser.post("/connect/remote", data={"t": t2, "secret": "   "})
        assert empty.status_code == 400


async def test_batch_tasks_name_accounts_and_missing_ones_fail_with_the_url(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await env.seed_oauth(env.owner.user_id, "work")
        await env.seed_oauth(env.owner.user_id, "personal")
        async with mcp_client(env.rt) as client:
            lines = [
                {"id": "w", "module": "gh", "tool": "whoami", "account": "work", "output": True},
                {"id": "p", "module": "gh", "tool": "whoami", "account": "personal", "output": True},
                {"id": "x", "module": "gh", "tool": "whoami", "account": "missing", "output": True},
            ]
            result = await client.call_tool("batch", {"tasks": "\n".join(json.dumps(line) for line in lines)})
        body = result.structured_content
        assert body is not None
        text = json.dumps(body)
        assert '"account": "work"' in text and '"account": "personal"' in text
        assert "/connect/gh?t=" in json.dumps(body["failed"]["x"])


async def test_expired_flows_are_refused(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env, web_client(env) as browser:
        url = await connect_url(env)
        async with env.rt.engine.begin() as conn:
            await conn.execute(connect_flows.update().values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        assert (await browser.get(relative(url))).status_code == 404
        await connect_url(env)  # making another flow sweeps the expired one
        async with env.rt.engine.connect() as conn:
            rows = (await conn.execute(connect_flows.select())).all()
        assert len(rows) == 1
