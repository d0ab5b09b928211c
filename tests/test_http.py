"""HTTP surface: health, bearer auth with resource metadata, Origin and Host validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpist.auth.tokens import TokenStore
from support import BASE, http_client, new_token, runtime

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_health_reports_status_version_database(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, http_client(rt) as http:
        response = await http.get("/health")
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "version": rt.version, "database": True}


@pytest.mark.parametrize("auth", [None, "Bearer nope", "Bearer mcpist_forged", "Basic abc"])
async def test_mcp_refuses_without_a_valid_token(tmp_path: Path, auth: str | None) -> None:
    async with runtime(tmp_path) as rt, http_client(rt) as http:
        headers = dict(HEADERS)
        if auth:
            headers["Authorization"] = auth
        response = await http.post("/mcp", json=INIT, headers=headers)
        assert response.status_code == 401
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        assert f'resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"' in challenge


async def test_revoked_token_is_refused(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt, "gone")
        async with http_client(rt, token) as http:
            assert (await http.post("/mcp", json=INIT, headers=HEADERS)).status_code == 200
            await TokenStore(rt.engine).revoke("gone")
            assert (await http.post("/mcp", json=INIT, headers=HEADERS)).status_code == 401


async def test_protected_resource_metadata(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, http_client(rt) as http:
        response = await http.get("/.well-known/oauth-protected-resource/mcp")
        assert response.status_code == 200
        body = response.json()
        assert body["resource"] == f"{BASE}/mcp"
        assert body["authorization_servers"] == [f"{BASE}/"] or body["authorization_servers"] == [BASE]
        assert body["bearer_methods_supported"] == ["header"]


async def test_the_protected_resource_metadata_is_at_the_root_too(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, http_client(rt) as http:
        root = await http.get("/.well-known/oauth-protected-resource")
        assert root.status_code == 200
        assert root.json() == (await http.get("/.well-known/oauth-protected-resource/mcp")).json()


async def test_a_trailing_slash_reaches_the_same_endpoint_with_the_same_checks(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            answer = await http.post("/mcp/", json=INIT, headers=HEADERS)
            assert answer.status_code == 200 and answer.json()["result"]["serverInfo"]["name"] == "mcpist"
        async with http_client(rt) as anonymous:
            assert (await anonymous.post("/mcp/", json=INIT, headers=HEADERS)).status_code == 401


async def test_a_browser_client_gets_cors_from_allowed_origins_only(tmp_path: Path) -> None:
    preflight = {
        "Origin": BASE,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, mcp-session-id, mcp-protocol-version",
    }
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt) as anonymous:
            # the preflight carries no token and is answered before authentication
            allowed = await anonymous.options("/mcp", headers=preflight)
            assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == BASE
            assert "mcp-session-id" in allowed.headers["access-control-allow-headers"].lower()
            assert "access-control-allow-credentials" not in allowed.headers  # bearer tokens, no cookies
            foreign = await anonymous.options("/mcp", headers={**preflight, "Origin": "https://evil.example"})
            assert foreign.status_code == 403 and "access-control-allow-origin" not in foreign.headers
            # a refusal is readable by the page, so it can start the OAuth flow
            refused = await anonymous.post("/mcp", json=INIT, headers={**HEADERS, "Origin": BASE})
            assert (
                refused.status_code == 401
                and "www-authenticate" in refused.headers["access-control-expose-headers"].lower()
            )
        async with http_client(rt, token) as http:
            answer = await http.post("/mcp", json=INIT, headers={**HEADERS, "Origin": BASE})
            assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == BASE
            assert "mcp-session-id" in answer.headers["access-control-expose-headers"].lower()
            # without an Origin (not a browser) nothing changes
            assert "access-control-allow-origin" not in (await http.post("/mcp", json=INIT, headers=HEADERS)).headers


async def test_foreign_origin_is_refused(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            evil = {**HEADERS, "Origin": "https://evil.example"}
            assert (await http.post("/mcp", json=INIT, headers=evil)).status_code == 403
            ok = {**HEADERS, "Origin": BASE}
            assert (await http.post("/mcp", json=INIT, headers=ok)).status_code == 200


async def test_origin_checked_on_public_bind(tmp_path: Path) -> None:
    async with runtime(tmp_path, host="0.0.0.0", public_url="https://mcp.example.com") as rt:
        token = await new_token(rt)
        async with http_client(rt, token) as http:
            good = {**HEADERS, "Host": "mcp.example.com", "Origin": "https://mcp.example.com"}
            assert (await http.post("/mcp", json=INIT, headers=good)).status_code == 200
            evil = {**HEADERS, "Host": "mcp.example.com", "Origin": "https://evil.example"}
            assert (await http.post("/mcp", json=INIT, headers=evil)).status_code == 403
            rebinding = {**HEADERS, "Host": "attacker.example"}
            assert (await http.post("/mcp", json=INIT, headers=rebinding)).status_code == 421


async def test_public_bind_without_public_url_is_a_config_error(tmp_path: Path) -> None:
    from mcpist.errors import ConfigError
    from mcpist.web.app import create_app

    async with runtime(tmp_path, host="0.0.0.0") as rt:
        with pytest.raises(ConfigError, match="public_url"):
            create_app(rt)
