"""The github module through a running MCPist: two accounts in one batch, an OAuth token refreshed on a
401 through the token broker, and no token in any answer or log line."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from github_fake import user
from github_world import fake_upstream

from mcpist.errors import ConnectRequired
from mcpist.modules.api import Caller
from mcpist.modules.github import module
from mcpist.testing import in_process_client, running

pytestmark = pytest.mark.anyio

TOKEN_URL = "https://github.com/login/oauth/access_token"


def who(request: httpx.Request, logins: dict[str, str]) -> Any:
    token = request.headers.get("Authorization", "").removeprefix("Bearer ")
    if token not in logins:
        # GitHub's 401 body; a careless server would echo the token it was given
        return 401, {"message": f"Bad credentials for {token}", "documentation_url": "https://docs.github.com/rest"}
    return {**user(logins[token]), "name": logins[token]}


async def test_one_batch_reads_two_github_accounts(tmp_path: Path) -> None:
    fake = fake_upstream()
    logins = {"ghp_work_0001": "octo-work", "ghp_home_0002": "octo-home"}
    fake.route("GET", "/user")(lambda request: who(request, logins))
    with fake:
        async with running([module], tmp_path, upstream=fake.transport()) as rt:
            broker: Any = rt.accounts
            for name, token in (("work", "ghp_work_0001"), ("home", "ghp_home_0002")):
                await broker.accounts.put(
                    service="github", name=name, kind="api_key", secrets={"api_key": token}, user_id=rt.owner.id
                )
            async with in_process_client(rt) as client:
                schema = (await client.call_tool("get_module_schema", {"module": "github"})).structured_content
                assert schema["accounts"] == {"names": ["home", "work"], "default": None}
                tasks = "\n".join(
                    json.dumps({"id": n, "module": "github", "tool": "get_me", "account": n, "output": True})
                    for n in ("work", "home")
                )
                result = await client.call_tool("batch", {"tasks": tasks})
    assert not result.is_error, result.content
    body = result.structured_content
    assert body["results"]["work"]["login"] == "octo-work"
    assert body["results"]["home"]["login"] == "octo-home"
    assert "ghp_" not in json.dumps(body)


async def test_a_revoked_oauth_token_is_refreshed_once_then_a_dead_grant_asks_to_connect(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake = fake_upstream()
    logins = {"gho_fresh_2": "octocat"}
    fake.route("GET", "/user")(lambda request: who(request, logins))
    refreshes: list[dict[str, str]] = []

    def token_endpoint(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == TOKEN_URL and request.headers["accept"] == "application/json"
        form = dict(httpx.QueryParams(request.content.decode()))
        refreshes.append(form)
        if form.get("refresh_token") != "ghr_1":
            return httpx.Response(400, json={"error": "invalid_grant"})
        return httpx.Response(
            200, json={"access_token": "gho_fresh_2", "refresh_token": "ghr_2", "expires_in": 28800, "scope": "repo"}
        )

    with fake:
        async with running([module], tmp_path, upstream=fake.transport()) as rt:
            broker: Any = rt.accounts
            broker.http = httpx.AsyncClient(transport=httpx.MockTransport(token_endpoint))
            await broker.apps.put("github", "Iv1.client", "GITHUB-CLIENT-SECRET-77")
            await broker.accounts.put(
                service="github",
                name="default",
                kind="oauth2",
                secrets={"access_token": "gho_revoked_1", "refresh_token": "ghr_1"},
                user_id=rt.owner.id,
                expires_at=datetime.now(UTC) + timedelta(hours=1),  # not due: only the 401 tells
            )
            owner = Caller(user_id=rt.owner.id)
            me = await rt.execute(owner, "github", "get_me", {})
            assert me["login"] == "octocat"
            assert [r["grant_type"] for r in refreshes] == ["refresh_token"]
            assert (await rt.execute(owner, "github", "get_me", {}))["login"] == "octocat"
            assert len(refreshes) == 1  # the fresh token is stored and reused

            logins.clear()  # the grant is revoked upstream: the fresh token fails too
            with pytest.raises(ConnectRequired, match="needs to be connected again") as asked:
                await rt.execute(owner, "github", "get_me", {})
            assert "/connect/github?" in asked.value.connect_url
            await broker.http.aclose()
    assert len(refreshes) == 2  # the 401 on the fresh token asked once more; the provider refused the grant
    text = repr(asked.value) + json.dumps(asked.value.to_dict()) + caplog.text
    for secret in ("gho_revoked_1", "gho_fresh_2", "ghr_1", "ghr_2", "GITHUB-CLIENT-SECRET-77"):
        assert secret not in text, secret
