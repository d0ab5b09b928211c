"""The login and consent pages: passwords, rate limiting, cookies, escaping."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from mcpist.auth.users import add_user, set_password
from mcpist.config import AuthSettings
from mcpist.protocol.oauth import authorization_servers
from oauth_support import (
    INIT,
    MCP_HEADERS,
    PASSWORD,
    FakeClock,
    browser,
    compose_app,
    csrf,
    pkce,
    query,
    register,
    sign_in,
    start,
)
from support import new_token, runtime

pytestmark = pytest.mark.anyio

OWNER = "owner@localhost"


async def _request_id(http: httpx2.AsyncClient, **metadata: object) -> str:
    client = await register(http, **metadata)
    _, challenge = pkce()
    return query((await start(http, client["client_id"], challenge)).headers["location"])["request"]


async def test_wrong_password_and_unknown_email_look_the_same(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            request_id = await _request_id(http)
            wrong = await sign_in(http, request_id, OWNER, "not the password")
            unknown = await sign_in(http, request_id, "nobody@example.com", PASSWORD)
            for response in (wrong, unknown):
                assert response.status_code == 403
                assert "Wrong email or password." in response.text
                assert "mcpist_session" not in response.headers.get("set-cookie", "")


async def test_failed_sign_ins_are_rate_limited(tmp_path: Path) -> None:
    clock = FakeClock()
    auth = AuthSettings(login_max_failures=3, login_window_s=600)
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        await add_user(rt.engine, "bob@example.com", password="bobs password!")
        async with browser(compose_app(rt, auth, clock)) as http:
            request_id = await _request_id(http)
            for _ in range(3):
                assert (await sign_in(http, request_id, OWNER, "guess guess")).status_code == 403
            # the right password no longer helps, until the window passes
            blocked = await sign_in(http, request_id, OWNER, PASSWORD)
            assert blocked.status_code == 429
            assert blocked.headers["retry-after"] == "2"  # login_backoff_s, doubling with each further failure
            assert "Too many failed sign-ins" in blocked.text
            # another account is not locked by someone guessing the owner's password
            assert (await sign_in(http, request_id, "bob@example.com", "bobs password!")).status_code == 303
            http.cookies.clear()
            clock.advance(601)
            assert (await sign_in(http, request_id, OWNER, PASSWORD)).status_code == 303


async def test_one_address_guessing_many_accounts_is_limited(tmp_path: Path) -> None:
    auth = AuthSettings(login_max_failures=100, login_max_failures_per_ip=4)
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, auth)) as http:
            request_id = await _request_id(http)
            for n in range(4):
                assert (await sign_in(http, request_id, f"user{n}@example.com", "guess guess")).status_code == 403
            assert (await sign_in(http, request_id, OWNER, PASSWORD)).status_code == 429


async def test_session_cookie_is_signed_httponly_and_lax(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            request_id = await _request_id(http)
            response = await sign_in(http, request_id, OWNER, PASSWORD)
            cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("mcpist_session="))
            assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower() and "path=/" in cookie.lower()
            value = cookie.split(";")[0].split("=", 1)[1]
            assert (await http.get("/oauth/consent", params={"request": request_id})).status_code == 200
            # a tampered cookie is no session
            http.cookies.clear()
            http.cookies.set("mcpist_session", value)
            assert (await http.get("/oauth/consent", params={"request": request_id})).status_code == 200
            http.cookies.clear()
            http.cookies.set("mcpist_session", value[:-2] + ("AA" if value[-2:] != "AA" else "BB"))
            assert (await http.get("/oauth/consent", params={"request": request_id})).status_code == 303


async def test_https_deployments_use_host_prefixed_secure_cookies(tmp_path: Path) -> None:
    async with runtime(tmp_path, public_url="https://mcp.example.com") as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        base = "https://mcp.example.com"
        async with browser(compose_app(rt, AuthSettings()), base=base) as http:
            client = await register(http)
            _, challenge = pkce()
            response = await start(http, client["client_id"], challenge, resource=f"{base}/mcp")
            request_id = query(response.headers["location"])["request"]
            response = await sign_in(http, request_id, OWNER, PASSWORD)
            cookie = next(c for c in response.headers.get_list("set-cookie") if "mcpist_session=" in c)
            assert cookie.startswith("__Host-mcpist_session=") and "secure" in cookie.lower()


async def test_http_public_url_is_refused(tmp_path: Path) -> None:
    from mcpist.errors import ConfigError

    async with runtime(tmp_path, public_url="http://mcp.example.com") as rt:
        with pytest.raises(ConfigError, match="https"):
            compose_app(rt, AuthSettings())


async def test_consent_page_escapes_what_the_client_says(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            request_id = await _request_id(http, client_name='<script>alert("x")</script>')
            await sign_in(http, request_id, OWNER, PASSWORD)
            page = await http.get("/oauth/consent", params={"request": request_id})
            assert "<script>" not in page.text
            assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page.text
            assert "cannot vouch for its name" in page.text
            assert "frame-ancestors 'none'" in page.headers["content-security-policy"]


async def test_sign_out(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings())) as http:
            request_id = await _request_id(http)
            await sign_in(http, request_id, OWNER, PASSWORD)
            page = await http.get("/oauth/consent", params={"request": request_id})
            logout_token = page.text.split('action="/oauth/logout"')[1]
            response = await http.post("/oauth/logout", data={"csrf": csrf(logout_token), "request": request_id})
            assert response.status_code == 303
            assert (await http.get("/oauth/consent", params={"request": request_id})).status_code == 303


async def test_password_login_can_be_turned_off(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, OWNER, PASSWORD)
        async with browser(compose_app(rt, AuthSettings(password_login=False))) as http:
            assert (await http.get("/oauth/login")).status_code == 404
            request_id = await _request_id(http)
            assert (await http.get("/oauth/login", params={"request": request_id})).status_code == 404


async def test_an_unknown_request_shows_an_expiry_page(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, browser(compose_app(rt, AuthSettings())) as http:
        for path in ("/oauth/login", "/oauth/consent"):
            response = await http.get(path, params={"request": "nope"})
            assert response.status_code == 400 and "expired" in response.text


async def test_authorization_server_can_be_turned_off(tmp_path: Path) -> None:
    """With it off, a plain-http public URL is fine: API tokens (and external JWTs) remain."""
    auth = AuthSettings(authorization_server=False)
    async with runtime(tmp_path, host="0.0.0.0", public_url="http://mcp.lan:8765") as rt:
        token = await new_token(rt)
        async with browser(compose_app(rt, auth), base="http://mcp.lan:8765") as http:
            assert (await http.get("/.well-known/oauth-authorization-server")).status_code == 404
            assert (await http.get("/oauth/login")).status_code == 404
            headers = {"Host": "mcp.lan:8765"}
            response = await http.post(
                "/mcp", json=INIT, headers={**MCP_HEADERS, **headers, "Authorization": f"Bearer {token}"}
            )
            assert response.status_code == 200
        assert authorization_servers(rt.settings, auth) == []
        assert authorization_servers(rt.settings, AuthSettings()) == ["http://mcp.lan:8765/"]


def test_public_api_is_pinned() -> None:
    import mcpist.protocol.oauth as oauth

    assert sorted(oauth.__all__) == sorted(
        [
            "ChainedTokenVerifier",
            "Cookies",
            "ExternalJwtVerifier",
            "Keys",
            "MCPistAuthProvider",
            "OAuthTokenVerifier",
            "Pages",
            "PasswordOutcome",
            "PasswordSignIn",
            "RuntimeLike",
            "authorization_servers",
            "browser_user",
            "load_master_key",
            "oauth_routes",
            "token_verifiers",
        ]
    )
    assert all(hasattr(oauth, name) for name in oauth.__all__)
