"""The authorization server end to end: metadata, DCR, authorize -> login -> consent -> token -> /mcp."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from mcpist.auth.users import set_password
from mcpist.config import AuthSettings
from oauth_support import (
    INIT,
    MCP_HEADERS,
    PASSWORD,
    REDIRECT,
    authorize,
    browser,
    compose_app,
    consent,
    exchange,
    mcp_session,
    mcp_status,
    path_of,
    pkce,
    query,
    refresh,
    register,
    sign_in,
    start,
)
from support import BASE, runtime

pytestmark = pytest.mark.anyio

OWNER = "owner@localhost"


async def test_authorization_server_metadata(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        meta = (await http.get("/.well-known/oauth-authorization-server")).json()
        assert meta["issuer"].rstrip("/") == BASE
        assert meta["authorization_endpoint"] == f"{BASE}/authorize"
        assert meta["token_endpoint"] == f"{BASE}/token"
        assert meta["registration_endpoint"] == f"{BASE}/register"
        assert meta["revocation_endpoint"] == f"{BASE}/revoke"
        assert meta["code_challenge_methods_supported"] == ["S256"]
        assert meta["response_types_supported"] == ["code"]
        assert set(meta["grant_types_supported"]) == {"authorization_code", "refresh_token"}
        assert "none" in meta["token_endpoint_auth_methods_supported"]
        assert meta["client_id_metadata_document_supported"] is True
        assert meta["authorization_response_iss_parameter_supported"] is True
        resource = (await http.get("/.well-known/oauth-protected-resource/mcp")).json()
        assert resource["resource"] == f"{BASE}/mcp"
        assert [s.rstrip("/") for s in resource["authorization_servers"]] == [BASE]


async def test_full_flow_from_registration_to_tools_list(database_url: str, tmp_path: Path) -> None:
    async with runtime(tmp_path, database_url=database_url) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        app = compose_app(rt, AuthSettings())
        async with browser(app) as http:
            client = await register(http)
            assert client["client_id"] and "client_secret" not in client
            verifier, challenge = pkce()
            response = await start(http, client["client_id"], challenge)
            assert response.status_code == 302
            to_consent = path_of(response.headers["location"])
            assert to_consent.startswith("/oauth/consent?request=")
            request_id = query(to_consent)["request"]
            # not signed in yet: the consent page sends the browser to the login page
            response = await http.get(to_consent)
            assert response.status_code == 303
            assert path_of(response.headers["location"]) == f"/oauth/login?request={request_id}"
            login_page = await http.get(path_of(response.headers["location"]))
            assert "Sign in to continue to Test Client" in login_page.text
            response = await sign_in(http, request_id, OWNER, PASSWORD)
            assert response.status_code == 303
            assert path_of(response.headers["location"]) == to_consent
            page = await http.get(to_consent)
            assert "Test Client" in page.text and REDIRECT in page.text and OWNER in page.text
            assert f"{BASE}/mcp" in page.text
            assert page.headers["x-frame-options"] == "DENY"
            response = await consent(http, request_id)
            location = response.headers["location"]
            assert location.startswith(REDIRECT + "?")
            params = query(location)
            assert params["state"] == "st-123"
            assert params["iss"].rstrip("/") == BASE
            tokens = (await exchange(http, client["client_id"], params["code"], verifier)).json()
            assert tokens["token_type"] == "Bearer"
            assert tokens["expires_in"] == 3600
            assert tokens["access_token"].startswith("mcpist-at_")
            assert tokens["refresh_token"].startswith("mcpist-rt_")
            assert await mcp_status(http, tokens["access_token"]) == 200
        async with mcp_session(rt, AuthSettings(), tokens["access_token"]) as mcp:
            names = [t.name for t in (await mcp.list_tools()).tools]
            assert names == ["get_module_schema", "call", "batch", "run_script"]
            result = await mcp.call_tool("call", {"module": "demo", "tool_name": "echo", "params": {"text": "hi"}})
            assert result.structured_content is not None
            assert rt.owner.id in str(result.structured_content)


async def test_secrets_are_stored_hashed(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http, token_endpoint_auth_method="client_secret_post")
            secret = client["client_secret"]
            code, verifier = await authorize(http, client["client_id"], OWNER)
            tokens = (await exchange(http, client["client_id"], code, verifier, client_secret=secret)).json()
        database = (tmp_path / "mcpist.db").read_bytes() + (
            (tmp_path / "mcpist.db-wal").read_bytes() if (tmp_path / "mcpist.db-wal").exists() else b""
        )
        for value in (secret, code, tokens["access_token"], tokens["refresh_token"], PASSWORD):
            assert value.encode() not in database


@pytest.mark.parametrize(
    ("method", "challenge"),
    [("plain", "x" * 43), (None, None), ("S256", None), ("plain", None)],
    ids=["plain", "nothing", "method-only", "plain-no-challenge"],
)
async def test_pkce_downgrade_is_refused(tmp_path: Path, method: str | None, challenge: str | None) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        client = await register(http)
        response = await start(http, client["client_id"], challenge, code_challenge_method=method)  # type: ignore[arg-type]
        assert response.status_code == 302
        location = response.headers["location"]
        assert location.startswith(REDIRECT), "no pending authorization, the error goes back to the client"
        assert query(location)["error"] == "invalid_request"


async def test_confidential_client_needs_its_secret(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http, token_endpoint_auth_method="client_secret_post")
            code, verifier = await authorize(http, client["client_id"], OWNER)
            response = await exchange(http, client["client_id"], code, verifier, client_secret="wrong")
            assert response.status_code == 401
            response = await exchange(http, client["client_id"], code, verifier, client_secret=client["client_secret"])
            assert response.status_code == 200


async def test_wrong_code_verifier_is_refused(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            code, _ = await authorize(http, client["client_id"], OWNER)
            other, _ = pkce()
            response = await exchange(http, client["client_id"], code, other)
            assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


async def test_replayed_code_is_refused_and_its_tokens_revoked(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            code, verifier = await authorize(http, client["client_id"], OWNER)
            tokens = (await exchange(http, client["client_id"], code, verifier)).json()
            assert await mcp_status(http, tokens["access_token"]) == 200
            replay = await exchange(http, client["client_id"], code, verifier)
            assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
            assert await mcp_status(http, tokens["access_token"]) == 401
            assert (await refresh(http, client["client_id"], tokens["refresh_token"])).status_code == 400


async def test_refresh_tokens_rotate_and_reuse_revokes_the_grant(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            code, verifier = await authorize(http, client["client_id"], OWNER)
            first = (await exchange(http, client["client_id"], code, verifier)).json()
            response = await refresh(http, client["client_id"], first["refresh_token"])
            assert response.status_code == 200
            second = response.json()
            assert second["refresh_token"] != first["refresh_token"]
            assert second["access_token"] != first["access_token"]
            assert await mcp_status(http, second["access_token"]) == 200
            # the old refresh token is spent; presenting it again means it leaked: the grant dies
            reused = await refresh(http, client["client_id"], first["refresh_token"])
            assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
            assert await mcp_status(http, second["access_token"]) == 401
            assert (await refresh(http, client["client_id"], second["refresh_token"])).status_code == 400


async def test_refresh_token_belongs_to_its_client(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client, other = await register(http), await register(http)
            code, verifier = await authorize(http, client["client_id"], OWNER)
            tokens = (await exchange(http, client["client_id"], code, verifier)).json()
            assert (await refresh(http, other["client_id"], tokens["refresh_token"])).status_code == 400
            assert (await refresh(http, client["client_id"], tokens["refresh_token"])).status_code == 200


@pytest.mark.parametrize("which", ["access_token", "refresh_token"])
async def test_revocation_ends_the_grant(tmp_path: Path, which: str) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            code, verifier = await authorize(http, client["client_id"], OWNER)
            tokens = (await exchange(http, client["client_id"], code, verifier)).json()
            response = await http.post("/revoke", data={"token": tokens[which], "client_id": client["client_id"]})
            assert response.status_code == 200
            assert await mcp_status(http, tokens["access_token"]) == 401
            assert (await refresh(http, client["client_id"], tokens["refresh_token"])).status_code == 400


async def test_dynamic_registration_refuses_unsafe_redirect_uris(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        for uri in ["http://evil.example/cb", "javascript:alert(1)", "https://ok.example/cb#frag"]:
            body = {"redirect_uris": [uri], "token_endpoint_auth_method": "none"}
            response = await http.post("/register", json=body)
            assert response.status_code == 400, uri
            assert response.json()["error"] in ("invalid_redirect_uri", "invalid_client_metadata")
        for uri in ["https://app.example/cb", "http://localhost:9999/cb", "com.example.app:/cb"]:
            response = await http.post("/register", json={"redirect_uris": [uri], "token_endpoint_auth_method": "none"})
            assert response.status_code == 201, uri


async def test_dynamic_registration_can_be_turned_off(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings(dynamic_registration=False))) as http:
        assert (await http.post("/register", json={"redirect_uris": [REDIRECT]})).status_code in (404, 405)
        meta = (await http.get("/.well-known/oauth-authorization-server")).json()
        assert "registration_endpoint" not in meta


async def test_denied_consent_returns_access_denied(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            _, challenge = pkce()
            request_id = query((await start(http, client["client_id"], challenge)).headers["location"])["request"]
            await sign_in(http, request_id, OWNER, PASSWORD)
            response = await consent(http, request_id, decision="deny")
            params = query(response.headers["location"])
            assert params["error"] == "access_denied" and params["state"] == "st-123" and "code" not in params
            # the request is answered: it cannot be approved afterwards
            assert (await http.get("/oauth/consent", params={"request": request_id})).status_code == 400


@pytest.mark.parametrize("resource", ["https://other.example/mcp", f"{BASE}/other"])
async def test_a_foreign_resource_is_refused(tmp_path: Path, resource: str) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        client = await register(http)
        _, challenge = pkce()
        response = await start(http, client["client_id"], challenge, resource=resource)
        assert query(response.headers["location"])["error"] == "invalid_target"


async def test_forms_need_their_csrf_token_and_our_origin(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            client = await register(http)
            _, challenge = pkce()
            request_id = query((await start(http, client["client_id"], challenge)).headers["location"])["request"]
            page = await http.get("/oauth/login", params={"request": request_id})
            form = {"email": OWNER, "password": PASSWORD, "request": request_id}
            assert (await http.post("/oauth/login", data={**form, "csrf": "forged"})).status_code == 403
            token = page.text.split('name="csrf" value="')[1].split('"')[0]
            evil = {"Origin": "https://evil.example"}
            assert (await http.post("/oauth/login", data={**form, "csrf": token}, headers=evil)).status_code == 403
            assert (await http.post("/oauth/login", data={**form, "csrf": token})).status_code == 303
            consent_form = {"request": request_id, "decision": "approve", "csrf": token}
            assert (await http.post("/oauth/consent", data=consent_form)).status_code == 403


class _Memory:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def test_the_sdk_oauth_client_connects_by_url_alone(tmp_path: Path) -> None:
    """The MCP SDK's own OAuth client: 401 -> resource metadata -> AS metadata -> DCR -> browser -> token."""
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        app = compose_app(rt, AuthSettings())
        landed: list[str] = []
        async with browser(app) as user:

            async def redirect_handler(url: str) -> None:
                response = await user.get(path_of(url))
                request_id = query(response.headers["location"])["request"]
                await sign_in(user, request_id, OWNER, PASSWORD)
                landed.append((await consent(user, request_id)).headers["location"])

            async def callback_handler() -> AuthorizationCodeResult:
                params = query(landed[-1])
                return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

            storage = _Memory()
            auth = OAuthClientProvider(
                f"{BASE}/mcp",
                OAuthClientMetadata(client_name="SDK client", redirect_uris=[AnyUrl(REDIRECT)]),
                storage,
                redirect_handler=redirect_handler,
                callback_handler=callback_handler,
            )
            async with httpx2.AsyncClient(
                transport=httpx2.ASGITransport(app=app), base_url=BASE, auth=auth, timeout=30
            ) as http:
                response = await http.post("/mcp", json=INIT, headers=MCP_HEADERS)
                assert response.status_code == 200
        assert storage.tokens is not None and storage.tokens.access_token.startswith("mcpist-at_")
        assert storage.client is not None and len(landed) == 1
        # the SDK client's auth flow holds its lock while it reads a response body, which a standing
        # GET event stream never finishes; so list the tools with the token it obtained
        async with mcp_session(rt, AuthSettings(), storage.tokens.access_token) as mcp:
            names = [t.name for t in (await mcp.list_tools()).tools]
        assert names == ["get_module_schema", "call", "batch", "run_script"]
