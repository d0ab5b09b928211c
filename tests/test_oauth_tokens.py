"""Access tokens at /mcp: ours (opaque, bound to /mcp's URL), API tokens beside them, and what is refused."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import httpx2
import jwt
import pytest

from mcpist.auth.tokens import TokenStore
from mcpist.auth.users import set_password
from mcpist.config import AuthSettings
from mcpist.protocol.oauth.clients import metadata_url_problem
from oauth_support import (
    PASSWORD,
    FakeClock,
    authorize,
    browser,
    compose_app,
    exchange,
    mcp_status,
    pkce,
    register,
    start,
    with_http,
)
from support import BASE, new_token, runtime

pytestmark = pytest.mark.anyio

OWNER = "owner@localhost"


async def _tokens(http: httpx2.AsyncClient, client_id: str) -> dict[str, str]:
    code, verifier = await authorize(http, client_id, OWNER)
    response = await exchange(http, client_id, code, verifier)
    tokens: dict[str, str] = response.json()
    return tokens


async def test_api_tokens_keep_working_beside_oauth(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        token = await new_token(rt, "laptop")
        async with browser(compose_app(rt, AuthSettings())) as http:
            assert await mcp_status(http, token) == 200
            await TokenStore(rt.engine).revoke("laptop")
            assert await mcp_status(http, token) == 401


async def test_forged_tokens_are_refused(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            real = (await _tokens(http, client["client_id"]))["access_token"]
            tampered = real[:-1] + ("A" if real[-1] != "A" else "B")
            for forged in ["mcpist-at_" + "A" * 43, tampered, "mcpist-rt_" + real[10:], real + "x"]:
                assert await mcp_status(http, forged) == 401, forged
            assert await mcp_status(http, real) == 200


async def test_expired_access_token_is_refused(tmp_path: Path) -> None:
    clock = FakeClock()
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings(access_token_ttl_s=600), clock)) as http:
            client = await register(http)
            token = (await _tokens(http, client["client_id"]))["access_token"]
            clock.advance(599)
            assert await mcp_status(http, token) == 200
            clock.advance(2)
            assert await mcp_status(http, token) == 401


async def test_token_for_another_resource_is_refused(tmp_path: Path) -> None:
    """Two servers on one database: a token bound to one's /mcp does not open the other's."""
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            token = (await _tokens(http, client["client_id"]))["access_token"]
            assert await mcp_status(http, token) == 200
    other = "http://127.0.0.1:9999"
    async with runtime(tmp_path, port=9999) as rt2, browser(compose_app(rt2, AuthSettings()), base=other) as http:
        assert rt2.settings.mcp_url == f"{other}/mcp"
        assert await mcp_status(http, token) == 401
        assert await mcp_status(http, await new_token(rt2, "still-fine")) == 200


async def test_token_from_another_issuer_is_refused(tmp_path: Path) -> None:
    """A token another MCPist (its own data and keys) issued means nothing here."""
    async with runtime(tmp_path / "a") as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            token = (await _tokens(http, client["client_id"]))["access_token"]
    async with runtime(tmp_path / "b") as rt2, browser(compose_app(rt2, AuthSettings())) as http:
        assert await mcp_status(http, token) == 401


async def test_unsigned_and_self_signed_jwts_are_refused(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        claims = {"iss": BASE, "aud": f"{BASE}/mcp", "sub": rt.owner.id, "exp": 4_000_000_000, "email": OWNER}
        header = jwt.utils.base64url_encode(json.dumps({"alg": "none", "typ": "JWT"}).encode()).decode()
        body = jwt.utils.base64url_encode(json.dumps(claims).encode()).decode()
        assert await mcp_status(http, f"{header}.{body}.") == 401
        assert await mcp_status(http, jwt.encode(claims, "guessed-secret-of-32-bytes-length", algorithm="HS256")) == 401


async def test_authorization_code_expires(tmp_path: Path) -> None:
    clock = FakeClock()
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings(), clock)) as http:
            client = await register(http)
            code, verifier = await authorize(http, client["client_id"], OWNER)
            clock.advance(301)
            response = await exchange(http, client["client_id"], code, verifier)
            assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


CIMD_URL = "https://client.example/oauth/metadata.json"


def _document_server(document: dict[str, object], hits: list[str]) -> object:
    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(str(request.url))
        if str(request.url) != CIMD_URL:
            return httpx.Response(404)
        return httpx.Response(200, json=document)

    return handler


async def test_client_id_metadata_document(tmp_path: Path) -> None:
    document = {
        "client_id": CIMD_URL,
        "client_name": "Doc Client",
        "redirect_uris": ["http://127.0.0.1:33418/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    hits: list[str] = []
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        rt = with_http(rt, _document_server(document, hits))
        async with browser(compose_app(rt, AuthSettings())) as http:
            code, verifier = await authorize(http, CIMD_URL, OWNER)
            response = await exchange(http, CIMD_URL, code, verifier)
            assert response.status_code == 200, response.text
            assert await mcp_status(http, response.json()["access_token"]) == 200
        assert hits == [CIMD_URL], "fetched once, then cached"


@pytest.mark.parametrize(
    "change",
    [
        {"client_id": "https://client.example/other.json"},
        {"token_endpoint_auth_method": "client_secret_post"},
        {"redirect_uris": ["http://evil.example/cb"]},
    ],
    ids=["names-another-id", "wants-a-secret", "unsafe-redirect"],
)
async def test_bad_client_id_metadata_documents_are_refused(tmp_path: Path, change: dict[str, object]) -> None:
    document = {"client_id": CIMD_URL, "redirect_uris": ["http://127.0.0.1:33418/callback"], **change}
    async with runtime(tmp_path) as rt:
        rt = with_http(rt, _document_server(document, []))
        async with browser(compose_app(rt, AuthSettings())) as http:
            _, challenge = pkce()
            response = await start(http, CIMD_URL, challenge)
            assert response.status_code == 400
            assert "not found" in response.json()["error_description"]


async def test_client_id_metadata_documents_can_be_turned_off(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        hits: list[str] = []
        rt = with_http(rt, _document_server({"client_id": CIMD_URL}, hits))
        async with browser(compose_app(rt, AuthSettings(client_metadata_documents=False))) as http:
            _, challenge = pkce()
            assert (await start(http, CIMD_URL, challenge)).status_code == 400
            assert hits == []
            meta = (await http.get("/.well-known/oauth-authorization-server")).json()
            assert meta["client_id_metadata_document_supported"] is False


@pytest.mark.parametrize(
    "url",
    [
        "http://client.example/meta.json",
        "https://client.example/",
        "https://client.example",
        "https://127.0.0.1/meta.json",
        "https://10.0.0.8/meta.json",
        "https://[::1]/meta.json",
        "https://localhost/meta.json",
        "https://user:pw@client.example/meta.json",
        "https://client.example/a/../meta.json",
    ],
)
def test_metadata_document_urls_that_are_never_fetched(url: str) -> None:
    assert metadata_url_problem(url) is not None
    assert metadata_url_problem("https://client.example/meta.json") is None
