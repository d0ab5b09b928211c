"""The token endpoint request: a form by default, a JSON body where the provider wants one (Notion)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import httpx
import pytest

from mcpist.vault.oauth import request_token
from mcpist.vault.store import OAuthApp

pytestmark = pytest.mark.anyio


def app(method: str) -> OAuthApp:
    return OAuthApp("notion", "client-1", method, datetime.now(UTC))  # type: ignore[arg-type]


async def test_a_json_body_with_basic_client_authentication() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"access_token": "A", "refresh_token": "R", "token_type": "bearer"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        tokens = await request_token(
            http,
            "https://api.notion.com/v1/oauth/token",
            {"grant_type": "refresh_token", "refresh_token": "R0"},
            app("client_secret_basic"),
            "S3CRET",
            json_body=True,
        )
    assert tokens.access_token == "A" and tokens.refresh_token == "R"
    (request,) = seen
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {"grant_type": "refresh_token", "refresh_token": "R0"}
    assert request.headers["authorization"] == "Basic " + base64.b64encode(b"client-1:S3CRET").decode()


async def test_a_form_by_default_with_the_client_in_the_body() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"access_token": "A", "expires_in": 60})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        await request_token(
            http, "https://p.test/token", {"grant_type": "refresh_token"}, app("client_secret_post"), "S"
        )
    (request,) = seen
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert b"client_id=client-1" in request.content and "authorization" not in request.headers
