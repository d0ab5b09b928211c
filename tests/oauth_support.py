"""The authorization server in process: the app composed as web/app.py will compose it, a browser, PKCE."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette

from mcpist.config import AuthSettings
from mcpist.runtime import Runtime
from mcpist.web.app import create_app
from support import BASE

REDIRECT = "http://127.0.0.1:33418/callback"
PASSWORD = "correct horse battery staple"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class FakeClock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def with_http(rt: Runtime, handler_or_app: Any) -> Runtime:
    """The runtime with its outgoing HTTP client replaced by a fake upstream (a handler or an ASGI app)."""
    transport = (
        httpx.MockTransport(handler_or_app)
        if not hasattr(handler_or_app, "router")
        else httpx.ASGITransport(app=handler_or_app)
    )
    return dataclasses.replace(rt, http=httpx.AsyncClient(transport=transport))


def compose_app(rt: Runtime, auth: AuthSettings, clock: Any = time.time) -> Starlette:
    """`create_app` with these auth settings and clock."""
    rt.settings = rt.settings.model_copy(update={"auth": auth})
    return create_app(rt, clock=clock)


@asynccontextmanager
async def browser(app: Starlette, base: str = BASE) -> AsyncIterator[httpx2.AsyncClient]:
    """An HTTP client with a cookie jar, talking to the app in process (lifespan included)."""
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url=base, timeout=30) as client,
    ):
        yield client


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def query(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def path_of(location: str) -> str:
    parts = urlsplit(location)
    return parts.path + ("?" + parts.query if parts.query else "")


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


async def register(http: httpx2.AsyncClient, **metadata: Any) -> dict[str, Any]:
    body = {
        "redirect_uris": [REDIRECT],
        "client_name": "Test Client",
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        **metadata,
    }
    response = await http.post("/register", json=body)
    assert response.status_code == 201, response.text
    client: dict[str, Any] = response.json()
    return client


async def start(http: httpx2.AsyncClient, client_id: str, challenge: str, **extra: str) -> httpx2.Response:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "st-123",
        "resource": f"{BASE}/mcp",
        **extra,
    }
    return await http.get("/authorize", params={k: v for k, v in params.items() if v is not None})


async def sign_in(http: httpx2.AsyncClient, request_id: str, email: str, password: str) -> httpx2.Response:
    page = await http.get("/oauth/login", params={"request": request_id})
    assert page.status_code == 200, page.text
    form = {"email": email, "password": password, "csrf": csrf(page.text), "request": request_id}
    return await http.post("/oauth/login", data=form)


async def consent(http: httpx2.AsyncClient, request_id: str, decision: str = "approve") -> httpx2.Response:
    page = await http.get("/oauth/consent", params={"request": request_id})
    assert page.status_code == 200, page.text
    return await http.post(
        "/oauth/consent", data={"csrf": csrf(page.text), "request": request_id, "decision": decision}
    )


async def authorize(http: httpx2.AsyncClient, client_id: str, email: str, password: str = PASSWORD) -> tuple[str, str]:
    """Authorize -> login -> consent; returns (code, code_verifier)."""
    verifier, challenge = pkce()
    response = await start(http, client_id, challenge)
    assert response.status_code == 302, response.text
    request_id = query(response.headers["location"])["request"]
    signed_in = await sign_in(http, request_id, email, password)
    assert signed_in.status_code == 303, signed_in.text
    approved = await consent(http, request_id)
    assert approved.status_code == 303, approved.text
    location = approved.headers["location"]
    assert location.startswith(REDIRECT)
    params = query(location)
    assert params["state"] == "st-123"
    return params["code"], verifier


async def exchange(http: httpx2.AsyncClient, client_id: str, code: str, verifier: str, **extra: str) -> httpx2.Response:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": client_id,
        "code_verifier": verifier,
        **extra,
    }
    return await http.post("/token", data=form)


async def refresh(http: httpx2.AsyncClient, client_id: str, token: str) -> httpx2.Response:
    return await http.post(
        "/token", data={"grant_type": "refresh_token", "refresh_token": token, "client_id": client_id}
    )


async def mcp_status(http: httpx2.AsyncClient, token: str) -> int:
    response = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})
    return response.status_code


@asynccontextmanager
async def mcp_session(rt: Runtime, auth: AuthSettings, token: str, clock: Any = time.time) -> AsyncIterator[Client]:
    """An MCP client with a bearer token, on a fresh app (an app's lifespan runs once)."""
    async with (
        browser(compose_app(rt, auth, clock)) as http,
        Client(streamable_http_client(f"{BASE}/mcp", http_client=_with_auth(http, token)), mode="legacy") as client,
    ):
        yield client


def _with_auth(http: httpx2.AsyncClient, token: str) -> httpx2.AsyncClient:
    http.headers["Authorization"] = f"Bearer {token}"
    return http
