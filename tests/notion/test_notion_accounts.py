"""The notion module through a running MCPist: two workspaces in one batch, a refresh on a 401 through the
token broker (Notion's token endpoint takes JSON and HTTP Basic), and no secret in answers or logs."""

from __future__ import annotations

import base64
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpist.modules.api import Caller
from mcpist.modules.notion import module
from mcpist.testing import FakeUpstream, in_process_client, running

pytestmark = pytest.mark.anyio

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "notion.json"
TOKEN_URL = "https://api.notion.com/v1/oauth/token"


def me(name: str) -> dict[str, Any]:
    return {
        "object": "user",
        "id": f"b1c2d3e4-0000-4000-8000-{abs(hash(name)) % 10**12:012d}",
        "type": "person",
        "name": name,
        "avatar_url": None,
        "person": {"email": f"{name}@example.com"},
    }


def workspace(tokens: dict[str, str]) -> FakeUpstream:
    fake = FakeUpstream.from_file(SPEC, base_url="https://api.notion.com")

    @fake.route("GET", "/v1/users")
    def _users(request: httpx.Request) -> Any:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if token not in tokens:
            return 401, {
                "object": "error",
                "status": 401,
                "code": "unauthorized",
                "message": f"API token {token} is invalid.",
            }
        return {
            "object": "list",
            "results": [me(tokens[token])],
            "next_cursor": None,
            "has_more": False,
            "type": "user",
            "user": {},
        }

    return fake


async def test_one_batch_reads_two_notion_workspaces(tmp_path: Path) -> None:
    fake = workspace({"secret_team_1": "team-bot", "secret_home_2": "home-bot"})
    with fake:
        async with running([module], tmp_path, upstream=fake.transport()) as rt:
            broker: Any = rt.accounts
            for name, token in (("team", "secret_team_1"), ("home", "secret_home_2")):
                await broker.accounts.put(
                    service="notion", name=name, kind="api_key", secrets={"api_key": token}, user_id=rt.owner.id
                )
            async with in_process_client(rt) as client:
                tasks = "\n".join(
                    json.dumps({"id": n, "module": "notion", "tool": "list_users", "account": n, "output": True})
                    for n in ("team", "home")
                )
                result = await client.call_tool("batch", {"tasks": tasks})
    assert not result.is_error, result.content
    body = result.structured_content
    assert [u["name"] for u in body["results"]["team"]["items"]] == ["team-bot"]
    assert [u["name"] for u in body["results"]["home"]["items"]] == ["home-bot"]
    assert "secret_" not in json.dumps(body)


async def test_a_refused_token_is_refreshed_with_a_json_request_and_basic_auth(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    tokens = {"ntn_fresh_2": "bot"}
    fake = workspace(tokens)
    seen: list[httpx.Request] = []

    def token_endpoint(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, json={"access_token": "ntn_fresh_2", "refresh_token": "nrt_2", "token_type": "bearer"}
        )

    with fake:
        async with running([module], tmp_path, upstream=fake.transport()) as rt:
            broker: Any = rt.accounts
            broker.http = httpx.AsyncClient(transport=httpx.MockTransport(token_endpoint))
            await broker.apps.put("notion", "client-9", "NOTION-CLIENT-SECRET-3", "client_secret_basic")
            await broker.accounts.put(
                service="notion",
                name="default",
                kind="oauth2",
                secrets={"access_token": "ntn_old_1", "refresh_token": "nrt_1"},
                user_id=rt.owner.id,
                expires_at=datetime.now(UTC) + timedelta(hours=1),
            )
            users = await rt.execute(Caller(user_id=rt.owner.id), "notion", "list_users", {})
            await broker.http.aclose()
    assert [u["name"] for u in users["items"]] == ["bot"]
    (request,) = seen
    assert str(request.url) == TOKEN_URL and request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {"grant_type": "refresh_token", "refresh_token": "nrt_1"}
    assert request.headers["authorization"] == "Basic " + base64.b64encode(b"client-9:NOTION-CLIENT-SECRET-3").decode()
    text = json.dumps(users) + caplog.text
    for secret in ("ntn_old_1", "ntn_fresh_2", "nrt_1", "nrt_2", "NOTION-CLIENT-SECRET-3"):
        assert secret not in text, secret
