"""The UI's security: headers on every page, the session cookie's flags, CSRF and same-origin checks on
every form and script request, sign-in required, and the server-side admin check on every admin page
and action."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ui_support import ADMIN, ALICE, PASSWORD, Ui, browser, csrf, people, shared_ui, sign_in, signed_in, submit, ui_app

from mcpist.auth.tokens import TokenStore
from mcpist.sieve import list_roles
from mcpist.web.ui.pages._signin import safe_next

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def ui(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Ui]:
    async with shared_ui(tmp_path_factory.mktemp("ui")) as shared:
        yield shared


ADMIN_PAGES = ["/users", "/users?id=x&tab=roles", "/roles", "/roles?id=x&tab=permissions", "/logs"]
ADMIN_ACTIONS = [
    ("/users/add", {"email": "eve@example.com"}),
    ("/users/admin", {"id": "x", "admin": "on"}),
    ("/users/disable", {"id": "x"}),
    ("/users/enable", {"id": "x"}),
    ("/users/password", {"id": "x", "password": "abcdefghij"}),
    ("/users/roles", {"id": "x", "role": "admin"}),
    ("/roles/create", {"name": "mine", "allow": "*"}),
    ("/roles/update", {"role": "basic", "allow": "*"}),
    ("/roles/delete", {"role": "basic"}),
    ("/roles/preview", {"allow": "*"}),
    ("/roles/account", {"role": "basic", "service": "remote", "secret": "k"}),
    ("/roles/account/remove", {"role": "basic", "service": "remote", "name": "default"}),
    ("/roles/app", {"service": "calendar", "client_id": "c"}),
]


async def test_every_page_sends_the_security_headers(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as client:
        for path in ["/", "/profile", "/tools", "/users", "/roles", "/logs", "/login", "/static/ui.css", "/nope"]:
            response = await client.get(path)
            csp = response.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp, path
            assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
            assert response.headers["x-frame-options"] == "DENY"
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["referrer-policy"] == "same-origin"
            expected = "public, max-age=3600" if path.startswith("/static/") else "no-store"
            assert response.headers["cache-control"] == expected, path
        # no inline script or style anywhere: the CSP would block them
        page = (await client.get("/roles")).text
        assert "<script>" not in page and " style=" not in page and "<style" not in page


async def test_the_session_cookie_is_httponly_and_lax(ui: Ui) -> None:
    async with browser(ui) as client:
        response = await sign_in(client, ADMIN)
        cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("mcpist_session="))
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie  # plain http on loopback


async def test_over_https_the_cookies_are_secure_and_host_only(tmp_path: Path) -> None:
    async with ui_app(tmp_path, public_url="https://mcp.example.com") as ui:
        await people(ui.rt)
        async with browser(ui, base="https://mcp.example.com") as client:
            response = await sign_in(client, ADMIN)
            assert response.status_code == 303
            cookies = response.headers.get_list("set-cookie")
            session = next(c for c in cookies if c.startswith("__Host-mcpist_session="))
            assert "Secure" in session and "HttpOnly" in session and "SameSite=lax" in session
            assert all("Secure" in c for c in cookies)
            assert (await client.get("/")).status_code == 200


async def test_a_form_without_its_token_or_from_another_site_is_refused(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as client:
        page = await client.get("/profile")
        token = csrf(page.text)
        refused = [
            await client.post("/profile/tokens", data={"name": "a"}),
            await client.post("/profile/tokens", data={"name": "a", "csrf": "forged"}),
            # another loopback origin passes the app's Host/Origin guard, not the UI's same-origin check
            await client.post(
                "/profile/tokens", data={"name": "a", "csrf": token}, headers={"Origin": "http://localhost:9999"}
            ),
            await client.post(
                "/profile/tokens", data={"name": "a", "csrf": token}, headers={"Sec-Fetch-Site": "cross-site"}
            ),
            # a script request carries the token in a header: the same check
            await client.post("/roles/preview", data={"allow": "*"}, headers={"X-CSRF-Token": "forged"}),
        ]
        for response in refused:
            assert response.status_code == 403
            assert "The form expired or came from another site" in response.text
        assert await TokenStore(ui.rt.engine).list() == []
        elsewhere = await client.post(
            "/profile/tokens", data={"name": "a", "csrf": token}, headers={"Origin": "https://evil.test"}
        )
        assert elsewhere.status_code == 403
        ok = await client.post("/roles/preview", data={"allow": "demo.*"}, headers={"X-CSRF-Token": token})
        assert ok.status_code == 200
        # the same page's token, opened by Alice in her own browser, is useless to her
    async with signed_in(ui, ALICE) as alice:
        stolen = await alice.post("/profile/tokens", data={"name": "b", "csrf": token})
        assert stolen.status_code == 403


async def test_a_body_larger_than_any_form_is_refused_unread(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as client:
        response = await client.post(
            "/roles/preview",
            content=b"allow=" + b"x" * 70_000,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert response.status_code == 413


async def test_the_login_form_is_protected_too(ui: Ui) -> None:
    async with browser(ui) as client:
        response = await client.post("/login", data={"email": ADMIN, "password": PASSWORD})
        assert response.status_code == 403
        assert "mcpist_session" not in response.headers.get("set-cookie", "")


async def test_signed_out_pages_redirect_to_login_and_actions_answer_401(ui: Ui) -> None:
    async with browser(ui) as client:
        for path in ["/", "/profile", "/tools?connect=remote", "/users?id=1"]:
            response = await client.get(path)
            assert response.status_code == 303
            assert response.headers["location"].startswith("/login?next=")
        response = await client.post("/profile/tokens", data={"name": "x"})
        assert response.status_code == 401


async def test_a_plain_user_gets_403_on_every_admin_page_and_action(ui: Ui) -> None:
    async with signed_in(ui, ALICE) as client:
        for path in ADMIN_PAGES:
            response = await client.get(path)
            assert response.status_code == 403, path
            assert "This page is for admins" in response.text
        for action, data in ADMIN_ACTIONS:
            response = await submit(client, "/profile", action, data)
            assert response.status_code == 403, action
        # her navigation offers none of them
        page = (await client.get("/")).text
        assert 'href="/users"' not in page and 'href="/roles"' not in page and 'href="/logs"' not in page
    names = {r.name for r in await list_roles(ui.rt.engine)}
    assert names == {"admin", "basic"}


def test_after_sign_in_only_local_paths_are_followed() -> None:
    assert safe_next("/tools?connect=github") == "/tools?connect=github"
    for bad in ["https://evil.test/", "//evil.test/x", "/\\evil.test", "javascript:alert(1)", "", None]:
        assert safe_next(bad) == "/"


async def test_sign_in_redirects_to_where_the_user_was_going(ui: Ui) -> None:
    async with browser(ui) as client:
        page = await client.get("/login?next=/tools%3Fconnect%3Dremote")
        assert 'name="next" value="/tools?connect=remote"' in page.text
        response = await client.post(
            "/login",
            data={"csrf": csrf(page.text), "email": ADMIN, "password": PASSWORD, "next": "//evil.test/"},
        )
        assert response.headers["location"] == "/"
