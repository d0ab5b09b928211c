"""Unauthenticated endpoints store bounded amounts, and every route checks Host (and Origin) as `/mcp` does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from mcp.server.transport_security import TransportSecurityMiddleware

from mcpist.config import AuthSettings
from mcpist.protocol.hosts import allowed
from mcpist.protocol.http import transport_security
from mcpist.protocol.oauth.tables import oauth_clients, oauth_requests
from oauth_support import REDIRECT, FakeClock, browser, compose_app, pkce, query, register, start
from support import BASE, runtime

pytestmark = pytest.mark.anyio


def client_body(**metadata: Any) -> dict[str, Any]:
    return {
        "redirect_uris": [REDIRECT],
        "client_name": "Test Client",
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        **metadata,
    }


async def count(rt: Any, table: sa.Table) -> int:
    async with rt.engine.connect() as conn:
        return int(await conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0)


async def test_registration_refuses_many_or_long_redirect_uris_and_large_metadata(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        eleven = [f"http://127.0.0.1:{3000 + n}/callback" for n in range(11)]
        response = await http.post("/register", json=client_body(redirect_uris=eleven))
        assert response.status_code == 400
        assert response.json() == {
            "error": "invalid_redirect_uri",
            "error_description": "at most 10 redirect_uris, not 11",
        }
        long_uri = "http://127.0.0.1:3000/" + "a" * 3000
        response = await http.post("/register", json=client_body(redirect_uris=[long_uri]))
        assert response.status_code == 400 and response.json()["error"] == "invalid_redirect_uri"
        response = await http.post("/register", json=client_body(client_name="n" * 3000))
        assert response.status_code == 400 and "client_name" in response.json()["error_description"]
        # the request: 60,000 redirect URIs in one body
        flood = [f"http://127.0.0.1/{n}" for n in range(60_000)]
        response = await http.post("/register", json=client_body(redirect_uris=flood))
        assert response.status_code == 413
        assert "16384 bytes" in response.json()["error_description"]
        assert await count(rt, oauth_clients) == 0
        assert (await http.post("/register", json=client_body(redirect_uris=eleven[:10]))).status_code == 201


async def test_registrations_per_address_are_limited_for_a_window(tmp_path: Path) -> None:
    clock = FakeClock()
    limits = {"registrations_per_address": 3, "address_window_s": 600}
    async with runtime(tmp_path, limits=limits) as rt, browser(compose_app(rt, AuthSettings(), clock)) as http:
        for _ in range(3):
            await register(http)
        refused = await http.post("/register", json=client_body())
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "600"
        assert await count(rt, oauth_clients) == 3
        clock.advance(601)
        await register(http)


async def test_unused_registrations_expire_and_the_total_is_bounded(tmp_path: Path) -> None:
    clock = FakeClock()
    limits = {"unused_registration_s": 60, "max_registrations": 10, "registrations_per_address": 100}
    async with runtime(tmp_path, limits=limits) as rt, browser(compose_app(rt, AuthSettings(), clock)) as http:
        used = await register(http)
        _, challenge = pkce()
        assert (await start(http, used["client_id"], challenge)).status_code == 302  # a pending authorization
        for _ in range(9):
            await register(http)
        full = await http.post("/register", json=client_body())
        assert full.status_code == 503 and full.json()["error"] == "temporarily_unavailable"
        clock.advance(61)
        # the next registration removes the nine nothing used; the one with a pending authorization stays
        fresh = await register(http)
        async with rt.engine.connect() as conn:
            left = set((await conn.execute(sa.select(oauth_clients.c.client_id))).scalars())
        assert left == {used["client_id"], fresh["client_id"]}


async def test_authorization_requests_are_bounded(tmp_path: Path) -> None:
    limits = {"pending_authorizations_per_client": 2, "max_state_chars": 64}
    async with runtime(tmp_path, limits=limits) as rt, browser(compose_app(rt, AuthSettings())) as http:
        client = await register(http)
        _, challenge = pkce()
        long_state = await start(http, client["client_id"], challenge, state="s" * 65)
        assert long_state.status_code == 400
        assert long_state.json()["error_description"] == "state is limited to 64 characters"
        huge = await start(http, client["client_id"], challenge, state="s" * 9000)
        assert huge.status_code == 414
        for _ in range(2):
            assert (await start(http, client["client_id"], challenge, state="s" * 64)).status_code == 302
        third = await start(http, client["client_id"], challenge)
        assert third.status_code == 302
        assert third.headers["location"].startswith(REDIRECT)
        assert query(third.headers["location"])["error"] == "temporarily_unavailable"
        assert await count(rt, oauth_requests) == 2
        # another client still gets its authorization
        other = await register(http)
        accepted = await start(http, other["client_id"], challenge)
        assert "/oauth/consent?request=" in accepted.headers["location"]


async def test_authorizations_per_address_are_limited(tmp_path: Path) -> None:
    limits = {"authorizations_per_address": 2}
    async with runtime(tmp_path, limits=limits) as rt, browser(compose_app(rt, AuthSettings())) as http:
        client = await register(http)
        _, challenge = pkce()
        for _ in range(2):
            assert (await start(http, client["client_id"], challenge)).status_code == 302
        assert (await start(http, client["client_id"], challenge)).status_code == 429


ROUTES = [
    ("GET", "/.well-known/oauth-authorization-server"),
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
    ("POST", "/register"),
    ("GET", "/authorize"),
    ("POST", "/token"),
    ("POST", "/revoke"),
    ("GET", "/oauth/login"),
    ("GET", "/oauth/consent"),
    ("POST", "/mcp"),
    ("GET", "/connect/github/callback"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_route_refuses_a_foreign_host_and_origin(tmp_path: Path, method: str, path: str) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        rebinding = await http.request(method, path, headers={"Host": "attacker.example"})
        assert (rebinding.status_code, rebinding.text) == (421, "Invalid Host header")
        cross_site = await http.request(method, path, headers={"Origin": "https://evil.example"})
        assert (cross_site.status_code, cross_site.text) == (403, "Invalid Origin header")
        own = await http.request(method, path, headers={"Origin": BASE})
        assert own.status_code not in (403, 421)


async def test_health_answers_any_host_with_up_and_nothing_more(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        by_address = await http.get("/health", headers={"Host": "10.1.2.3:8765"})
        assert (by_address.status_code, by_address.json()) == (200, {"status": "up"})
        own = await http.get("/health")
        assert own.json() == {"status": "ok", "version": rt.version, "database": True}


@pytest.mark.parametrize(
    ("host", "public_url"),
    [
        ("0.0.0.0", "https://mcp.example.com"),
        ("127.0.0.1", None),
    ],
)
def test_the_host_rules_are_the_sdks_rules(tmp_path: Path, host: str, public_url: str | None) -> None:
    from mcpist.config import load_settings

    settings = load_settings(data_dir=tmp_path, host=host, public_url=public_url)
    security = transport_security(settings)
    sdk = TransportSecurityMiddleware(security)
    hosts = [
        "mcp.example.com",
        "mcp.example.com:443",
        "mcp.example.com:8443",
        "MCP.example.com",
        "127.0.0.1:8765",
        "127.0.0.1:1",
        "127.0.0.1",
        "127.0.0.1.evil.example",
        "localhost:9",
        "[::1]:80",
        "evil.example",
        "",
    ]
    for value in hosts:
        assert allowed(value, security.allowed_hosts) == sdk._validate_host(value or None), value
    origins = ["https://mcp.example.com", "http://127.0.0.1:3000", "http://localhost", "https://evil.example", "null"]
    for value in origins:
        assert allowed(value, security.allowed_origins) == sdk._validate_origin(value), value


async def test_a_public_bind_refuses_a_load_balancers_address_but_for_health(tmp_path: Path) -> None:
    async with runtime(tmp_path, host="0.0.0.0", public_url="https://mcp.example.com") as rt:
        app = compose_app(rt, AuthSettings())
        async with browser(app, base="https://mcp.example.com") as http:
            assert (await http.get("/.well-known/oauth-authorization-server")).status_code == 200
            probe = httpx2.URL("https://10.0.0.7:8765/health")
            assert (await http.get(probe)).json() == {"status": "up"}
            assert (await http.get("https://10.0.0.7:8765/oauth/login")).status_code == 421
