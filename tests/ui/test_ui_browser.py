"""The UI in a real browser (Debian's chromium through Playwright): signing in, every page as an admin and
as a plain user, a token made in the UI used by an MCP client, a role edited in the UI changing what
`get_module_schema` shows, both languages, and no console error (a CSP violation is one). One browser and
one server for the whole module; connecting accounts from `/tools?connect=SERVICE` through an OAuth
provider on a loopback socket and by pasting a key; a screenshot of each page goes to $MCPIST_ARTIFACTS (default: the
system's temp dir, mcpist-artifacts/ui), never into the repository."""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import async_playwright, expect
from ui_support import ADMIN, ALICE, MODULES, PASSWORD, LoopbackProvider, people

from mcpist.auth.tokens import TokenStore
from mcpist.auth.users import find_user
from mcpist.modules.api import Caller
from mcpist.runtime import Runtime
from mcpist.sieve import prepare_token
from mcpist.vault.broker import TokenBroker
from support import runtime, served

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)"
    ),
]
ARTIFACTS = Path(os.environ.get("MCPIST_ARTIFACTS") or Path(tempfile.gettempdir()) / "mcpist-artifacts") / "ui"


@dataclass
class Site:
    rt: Runtime
    base: str
    browser: Any
    provider: LoopbackProvider
    console: list[str] = field(default_factory=list)

    async def page_as(self, email: str | None, language: str = "en-US") -> Any:
        """A page in a fresh browser context (its own cookies), signed in as `email`."""
        context = await self.browser.new_context(locale=language, viewport={"width": 1200, "height": 900})
        page = await context.new_page()
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        page.on("dialog", lambda d: d.accept())
        if email is not None:
            await page.goto(self.base + "/")
            assert "/login?next=" in page.url
            await page.locator("input[name=email]").fill(email)
            await page.locator("input[name=password]").fill(PASSWORD)
            await page.locator("form.stack button[type=submit]").click()
            await page.wait_for_url(self.base + "/")
        return page


async def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def site(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Site]:
    async with (
        LoopbackProvider().serving() as provider,
        runtime(tmp_path_factory.mktemp("browser"), [*MODULES, provider.module()]) as rt,
    ):
        await people(rt)
        assert isinstance(rt.accounts, TokenBroker)
        await rt.accounts.apps.put("loopcal", provider.client_id, provider.client_secret)
        async with served(rt) as mcp_url, async_playwright() as playwright:
            # the connect URLs the broker makes name the port, known only now
            rt.accounts.connector.base_url = rt.settings.base_url
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
            try:
                yield Site(rt, mcp_url.removesuffix("/mcp"), browser, provider)
            finally:
                await browser.close()


@pytest.fixture(autouse=True)
def no_console_errors(site: Site) -> Any:
    site.console.clear()
    yield
    assert site.console == []


async def mcp_tools(site: Site, token: str, module: str = "demo") -> set[str]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        Client(streamable_http_client(f"{site.base}/mcp", http_client=http), mode="legacy") as client,
    ):
        schema = await client.call_tool("get_module_schema", {"module": module})
        assert schema.structured_content is not None, schema
        return {t["name"] for t in schema.structured_content["tools"]}


async def test_an_admin_signs_in_and_opens_every_page(site: Site) -> None:
    page = await site.page_as(ADMIN)
    for path, heading, name in [
        ("/", "Dashboard", "admin-dashboard"),
        ("/profile", "Profile", "admin-profile"),
        ("/tools", "Tools", "admin-tools"),
        ("/tools?connect=remote", "Connect remote", "admin-tools-connect"),
        ("/users", "Users", "admin-users"),
        ("/roles", "Roles", "admin-roles"),
        ("/logs", "Logs", "admin-logs"),
    ]:
        response = await page.goto(site.base + path)
        assert response.status == 200, path
        assert heading in await page.locator("main").inner_text(), path
        await shot(page, name)
    # the users page's detail panel opens from the list, and back returns to the list
    await page.goto(site.base + "/users")
    await page.get_by_role("link", name=ALICE).click()
    await page.wait_for_url("**/users?id=*")
    assert await page.locator("#h-user").inner_text() == ALICE
    await page.get_by_role("link", name="Roles", exact=True).last.click()
    await page.wait_for_url("**&tab=roles")
    await shot(page, "admin-user-roles")
    await page.go_back()
    assert "tab=roles" not in page.url
    await page.context.close()


async def test_a_plain_user_sees_her_pages_and_403_on_admin_ones(site: Site) -> None:
    page = await site.page_as(ALICE)
    assert await page.locator("nav a", has_text="Users").count() == 0
    for path, name in [("/", "user-dashboard"), ("/profile", "user-profile"), ("/tools", "user-tools")]:
        assert (await page.goto(site.base + path)).status == 200
        await shot(page, name)
    # the tools she may not use are collapsed until she opens them
    unusable = page.locator("#unusable")
    assert await unusable.get_attribute("open") is None
    await unusable.locator("summary").click()
    assert await unusable.locator("#mod-calendar").is_visible()
    for path in ["/users", "/roles", "/logs"]:
        response = await page.goto(site.base + path)
        assert response.status == 403, path
        assert "This page is for admins" in await page.locator("main").inner_text()
    await shot(page, "user-403")
    # the browser reports each 403 document it was asked to open; those three are the point of this test
    expected = "Failed to load resource: the server responded with a status of 403 (Forbidden)"
    assert site.console.count(f"error: {expected}") == 3
    site.console[:] = [c for c in site.console if expected not in c]
    await page.context.close()


async def test_a_token_made_in_the_ui_serves_an_mcp_client(site: Site) -> None:
    page = await site.page_as(ALICE)
    await page.goto(site.base + "/profile")
    await page.locator("input[name=name]").fill("alice-browser")
    await page.get_by_role("button", name="Create token").click()
    token = (await page.locator("#new-token").inner_text()).strip()
    assert token.startswith("mcpist_")
    await shot(page, "user-token-created")
    assert await mcp_tools(site, token) == {"echo", "add"}
    # reloading never shows it again
    await page.goto(site.base + "/profile")
    assert token not in await page.content()
    await page.context.close()


async def test_a_role_edited_in_the_ui_changes_get_module_schema(site: Site) -> None:
    new = await prepare_token(site.rt.engine, email=ALICE)
    _, token = await TokenStore(site.rt.engine).create("alice-schema", new.user_id, then=new.narrow)
    assert "wait" not in await mcp_tools(site, token)
    page = await site.page_as(ADMIN)
    await page.goto(site.base + "/roles")
    await page.get_by_role("link", name="basic", exact=True).click()
    await page.get_by_role("link", name="Permissions").click()
    await page.wait_for_url("**tab=permissions")
    preview = page.locator("#preview")
    await page.locator("#role-form textarea[name=allow]").fill("demo.*\nremote.*")
    await page.locator("#role-form textarea[name=deny]").fill("demo.fail\ndemo.boom")
    # the live preview follows the typing, before anything is saved (polled by the locator: the CSP forbids
    # the eval that wait_for_function needs)
    await expect(preview).to_contain_text("wait")
    assert "fail" not in await preview.inner_text()
    await shot(page, "admin-role-preview")
    await page.locator("#role-form textarea[name=deny]").fill("demo.fail\ndemo.nosuch")
    await expect(preview).to_contain_text("unknown tool 'nosuch'")
    await page.locator("#role-form textarea[name=deny]").fill("demo.fail\ndemo.boom")
    await page.get_by_role("button", name="Save permissions").click()
    await page.wait_for_url("**done=saved")
    assert await mcp_tools(site, token) == {"echo", "add", "items", "wait"}
    await page.context.close()


async def test_both_languages(site: Site) -> None:
    page = await site.page_as(None, language="ja-JP")
    await page.goto(site.base + "/login")
    assert await page.locator("html").get_attribute("lang") == "ja"
    assert "MCPist にサインイン" in await page.locator("h1").inner_text()
    await shot(page, "ja-login")
    await page.context.close()
    page = await site.page_as(ADMIN)
    await page.get_by_role("button", name="日本語").click()
    await page.wait_for_load_state()
    assert await page.locator("html").get_attribute("lang") == "ja"
    for path, name in [("/", "ja-dashboard"), ("/tools", "ja-tools"), ("/roles", "ja-roles"), ("/logs", "ja-logs")]:
        await page.goto(site.base + path)
        await shot(page, name)
    assert "ダッシュボード" in await page.locator("nav").inner_text()
    await page.get_by_role("button", name="English").click()
    await page.wait_for_load_state()
    assert await page.locator("html").get_attribute("lang") == "en"
    await page.context.close()


def broker(site: Site) -> TokenBroker:
    assert isinstance(site.rt.accounts, TokenBroker)
    return site.rt.accounts


async def test_an_account_is_connected_through_the_services_oauth_flow(site: Site) -> None:
    page = await site.page_as(ADMIN)
    await page.goto(site.base + "/tools?connect=loopcal")
    assert "Connect loopcal" in await page.locator("#h-connect").inner_text()
    await shot(page, "admin-connect-oauth")
    await page.locator("#h-connect + form input[name=name]").fill("work")
    # the form posts to /tools/connect, which redirects to /connect/loopcal, then to the provider and back
    await page.get_by_role("button", name="Continue to loopcal").click()
    await page.wait_for_url("**/connect/loopcal/callback?**")
    assert "Your loopcal account work is connected" in await page.locator("main").inner_text()
    assert site.provider.access_token not in await page.content()
    await shot(page, "admin-connected-oauth")
    admin = await site.rt.principal(Caller(user_id=(await _id(site, ADMIN)), email=ADMIN))
    resolved = await broker(site).resolve(admin.caller, site.rt.registry.module("loopcal"), "work")  # type: ignore[arg-type]
    assert resolved is not None and resolved.account.name == "work"
    assert len(site.provider.exchanged) == 1
    await page.goto(site.base + "/tools")
    section = page.locator("section.module", has=page.locator("#mod-loopcal"))
    assert "loopcal:work" in await section.inner_text()
    await page.context.close()


async def test_a_key_is_pasted_on_the_tools_page_and_on_a_connect_link(site: Site) -> None:
    page = await site.page_as(ALICE)
    await page.goto(site.base + "/tools?connect=remote")
    form = page.locator("#h-connect + form")
    await form.locator("input[name=name]").fill("work")
    await form.locator("input[name=secret]").fill("PASTED-KEY-0451")
    await shot(page, "user-connect-key")
    await form.get_by_role("button", name="Save").click()
    await page.wait_for_url("**/tools?done=connected")
    assert "The account is connected" in await page.locator("main").inner_text()
    assert "PASTED-KEY-0451" not in await page.content()
    assert "remote:work" in await page.locator("main").inner_text()
    # the connect link a client is given (URL elicitation) opens the same layout, in her language
    alice = Caller(user_id=(await _id(site, ALICE)), email=ALICE)
    link = await broker(site).connector.begin(alice.user_id, "remote", "spare")
    await page.goto(link + "&lang=ja")
    assert await page.locator("html").get_attribute("lang") == "ja"
    await page.locator("input[name=secret]").fill("PASTED-KEY-0452")
    await shot(page, "ja-connect-link")
    await page.get_by_role("button", name="保存").click()
    await page.wait_for_load_state()
    assert "連携しました" in await page.locator("h1").inner_text()
    assert {a.name for a in await broker(site).accounts.find("remote", user_id=alice.user_id)} >= {"work", "spare"}
    await page.context.close()


async def _id(site: Site, email: str) -> str:
    user = await find_user(site.rt.engine, email)
    assert user is not None
    return user.id
