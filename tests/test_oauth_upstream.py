"""Signing in through an upstream provider: a fake OpenID Connect IdP and a fake GitHub, in process."""

from __future__ import annotations

import base64
import hashlib
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mcpist.auth.users import add_user, list_users
from mcpist.config import AuthSettings, UpstreamProvider
from mcpist.runtime import Runtime
from oauth_support import browser, compose_app, exchange, path_of, pkce, query, register, start, with_http
from support import BASE, runtime

pytestmark = pytest.mark.anyio

IDP = "https://idp.example"
CLIENT_ID = "mcpist-at-idp"
CLIENT_SECRET = "idp-secret"


class FakeIdp:
    """An OpenID Connect provider (discovery, authorize, token, userinfo) plus GitHub's emails API.

    It checks what a real one checks: the client's secret, the redirect URI, PKCE S256.
    """

    def __init__(self) -> None:
        self.email = "alice@example.com"
        self.verified = True
        self.github_emails: list[dict[str, Any]] = []
        self._codes: dict[str, dict[str, str]] = {}
        self._tokens: set[str] = set()
        self.app = Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self.discovery),
                Route("/authorize", self.authorize),
                Route("/token", self.token, methods=["POST"]),
                Route("/userinfo", self.userinfo),
                Route("/user/emails", self.emails),
            ]
        )

    async def discovery(self, request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": IDP,
                "authorization_endpoint": f"{IDP}/authorize",
                "token_endpoint": f"{IDP}/token",
                "userinfo_endpoint": f"{IDP}/userinfo",
                "code_challenge_methods_supported": ["S256"],
            }
        )

    async def authorize(self, request: Request) -> Response:
        q = request.query_params
        assert q["response_type"] == "code" and q["client_id"] == CLIENT_ID
        assert q["code_challenge_method"] == "S256" and q["state"]
        code = secrets.token_urlsafe(16)
        self._codes[code] = {"challenge": q["code_challenge"], "redirect_uri": q["redirect_uri"]}
        return RedirectResponse(f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}")

    async def token(self, request: Request) -> Response:
        form = await request.form()
        grant = self._codes.pop(str(form["code"]), None)
        if (
            grant is None
            or form["client_id"] != CLIENT_ID
            or form["client_secret"] != CLIENT_SECRET
            or form["redirect_uri"] != grant["redirect_uri"]
            or _s256(str(form["code_verifier"])) != grant["challenge"]
        ):
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        token = secrets.token_urlsafe(16)
        self._tokens.add(token)
        return JSONResponse({"access_token": token, "token_type": "Bearer", "expires_in": 60})

    def _authorized(self, request: Request) -> bool:
        return request.headers.get("authorization", "").removeprefix("Bearer ") in self._tokens

    async def userinfo(self, request: Request) -> Response:
        if not self._authorized(request):
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        return JSONResponse({"sub": "u1", "email": self.email, "email_verified": self.verified})

    async def emails(self, request: Request) -> Response:
        if not self._authorized(request):
            return JSONResponse({"message": "Bad credentials"}, status_code=401)
        return JSONResponse(self.github_emails)


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _oidc(**extra: Any) -> AuthSettings:
    provider = UpstreamProvider(
        name="corp", kind="oidc", issuer=IDP, client_id=CLIENT_ID, client_secret=SecretStr(CLIENT_SECRET), **extra
    )
    return AuthSettings(upstream=[provider])


async def _sign_in_upstream(rt: Runtime, auth: AuthSettings, idp: FakeIdp, name: str = "corp") -> tuple[Any, ...]:
    """Start at /authorize, take the upstream button, let the IdP answer; returns the callback response."""
    app = compose_app(rt, auth)
    async with browser(app) as http, httpx.AsyncClient(transport=httpx.ASGITransport(app=idp.app)) as idp_browser:
        client = await register(http)
        verifier, challenge = pkce()
        request_id = query((await start(http, client["client_id"], challenge)).headers["location"])["request"]
        login = await http.get("/oauth/login", params={"request": request_id})
        assert f'href="/oauth/upstream/{name}?request={request_id}"' in login.text
        response = await http.get(f"/oauth/upstream/{name}", params={"request": request_id})
        assert response.status_code == 302
        to_idp = response.headers["location"]
        assert to_idp.startswith(IDP + "/authorize?") or to_idp.startswith("https://github.example/")
        upstream_query = query(to_idp)
        assert upstream_query["redirect_uri"] == f"{BASE}/oauth/upstream/{name}/callback"
        back = await idp_browser.get(to_idp.replace("https://github.example/login/oauth", IDP))
        assert back.status_code == 307
        callback = await http.get(path_of(back.headers["location"]))
        if callback.status_code != 303:
            return callback, None
        assert path_of(callback.headers["location"]) == f"/oauth/consent?request={request_id}"
        page = await http.get(f"/oauth/consent?request={request_id}")
        token = page.text.split('name="csrf" value="')[1].split('"')[0]
        approved = await http.post("/oauth/consent", data={"csrf": token, "request": request_id, "decision": "approve"})
        code = query(approved.headers["location"])["code"]
        tokens = (await exchange(http, client["client_id"], code, verifier)).json()
        return callback, tokens


async def test_allowlisted_email_signs_in_and_the_first_becomes_admin(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        owner_id = rt.owner.id
        rt = with_http(rt, idp.app)
        callback, tokens = await _sign_in_upstream(rt, _oidc(allowed_emails=["alice@example.com"]), idp)
        assert callback.status_code == 303 and tokens["access_token"].startswith("mcpist-at_")
        users = {u.email: u for u in await list_users(rt.engine)}
        assert users["alice@example.com"].id == owner_id and users["alice@example.com"].system_role == "admin"


async def test_email_not_on_the_allowlist_is_refused(tmp_path: Path) -> None:
    idp = FakeIdp()
    idp.email = "mallory@example.com"
    async with runtime(tmp_path) as rt:
        rt = with_http(rt, idp.app)
        callback, tokens = await _sign_in_upstream(rt, _oidc(allowed_emails=["alice@example.com"]), idp)
        assert callback.status_code == 403 and tokens is None
        assert "mallory@example.com is not allowed" in callback.text
        assert "mcpist_session" not in callback.headers.get("set-cookie", "")
        assert {u.email for u in await list_users(rt.engine)} == {"owner@localhost"}


async def test_unverified_email_is_refused(tmp_path: Path) -> None:
    idp = FakeIdp()
    idp.verified = False
    async with runtime(tmp_path) as rt:
        rt = with_http(rt, idp.app)
        callback, _ = await _sign_in_upstream(rt, _oidc(allowed_emails=["alice@example.com"]), idp)
        assert callback.status_code == 403 and "without a verified email" in callback.text


async def test_registered_users_need_no_allowlist_entry(tmp_path: Path) -> None:
    idp = FakeIdp()
    idp.email = "bob@example.com"
    async with runtime(tmp_path) as rt:
        await add_user(rt.engine, "bob@example.com", role="user")
        rt = with_http(rt, idp.app)
        callback, tokens = await _sign_in_upstream(rt, _oidc(), idp)
        assert callback.status_code == 303 and tokens["access_token"]


async def test_github_uses_a_verified_address(tmp_path: Path) -> None:
    idp = FakeIdp()
    idp.github_emails = [
        {"email": "alice@example.com", "verified": False, "primary": True},
        {"email": "alice@work.example", "verified": True, "primary": False},
    ]
    provider = UpstreamProvider(
        name="github",
        kind="github",
        client_id=CLIENT_ID,
        client_secret=SecretStr(CLIENT_SECRET),
        authorization_endpoint="https://github.example/login/oauth/authorize",
        token_endpoint=f"{IDP}/token",
        userinfo_endpoint=f"{IDP}/user/emails",
        allowed_emails=["alice@example.com", "alice@work.example"],
    )
    async with runtime(tmp_path) as rt:
        rt = with_http(rt, idp.app)
        callback, tokens = await _sign_in_upstream(rt, AuthSettings(upstream=[provider]), idp, name="github")
        assert callback.status_code == 303 and tokens["access_token"]
        assert "alice@work.example" in {u.email for u in await list_users(rt.engine)}
        assert "alice@example.com" not in {u.email for u in await list_users(rt.engine)}


async def test_callback_without_the_browsers_state_is_refused(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        rt = with_http(rt, idp.app)
        async with browser(compose_app(rt, _oidc(allowed_emails=["alice@example.com"]))) as http:
            started = await http.get("/oauth/upstream/corp")
            state = query(started.headers["location"])["state"]
            forged = await http.get("/oauth/upstream/corp/callback", params={"code": "x", "state": state + "x"})
            assert forged.status_code == 400
            http.cookies.clear()
            replayed = await http.get("/oauth/upstream/corp/callback", params={"code": "x", "state": state})
            assert replayed.status_code == 400
            assert (await http.get("/oauth/upstream/nope")).status_code == 404


async def test_provider_errors_are_shown_not_raised(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        rt = with_http(rt, idp.app)
        async with browser(compose_app(rt, _oidc(allowed_emails=["alice@example.com"]))) as http:
            started = await http.get("/oauth/upstream/corp")
            state = query(started.headers["location"])["state"]
            denied = await http.get("/oauth/upstream/corp/callback", params={"error": "access_denied", "state": state})
            assert denied.status_code == 403 and "did not sign you in" in denied.text
            started = await http.get("/oauth/upstream/corp")
            state = query(started.headers["location"])["state"]
            bad_code = await http.get("/oauth/upstream/corp/callback", params={"code": "made-up", "state": state})
            assert bad_code.status_code == 502


def test_provider_settings_are_checked() -> None:
    secret = SecretStr("s")
    with pytest.raises(ValueError, match="tenant"):
        UpstreamProvider(name="ms", kind="microsoft", tenant="common", client_id="c", client_secret=secret)
    with pytest.raises(ValueError, match="issuer"):
        UpstreamProvider(name="x", kind="oidc", client_id="c", client_secret=secret)
    with pytest.raises(ValueError, match="duplicate"):
        AuthSettings(
            upstream=[
                UpstreamProvider(name="g", kind="google", client_id="c", client_secret=secret),
                UpstreamProvider(name="g", kind="github", client_id="c", client_secret=secret),
            ]
        )


async def test_an_upstream_sign_in_from_the_admin_ui_lands_on_its_dashboard(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        rt = with_http(rt, idp.app)
        app = compose_app(rt, _oidc(allowed_emails=["alice@example.com"]))
        async with browser(app) as http, httpx.AsyncClient(transport=httpx.ASGITransport(app=idp.app)) as idp_browser:
            login = await http.get("/login")
            assert 'href="/oauth/upstream/corp"' in login.text  # the UI's button: no MCP client is waiting
            to_idp = (await http.get("/oauth/upstream/corp")).headers["location"]
            back = await idp_browser.get(to_idp)
            callback = await http.get(path_of(back.headers["location"]))
            assert callback.status_code == 303 and path_of(callback.headers["location"]) == "/"  # was a notice page
            dashboard = await http.get("/")
            assert dashboard.status_code == 200 and "alice@example.com" in dashboard.text
