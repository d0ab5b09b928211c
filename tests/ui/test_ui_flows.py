"""The pages outside the UI's own mount on its templates: the OAuth sign-in page (with the first-run
hint naming the command as the operator runs it), the connect pages in both languages, behind the same
headers; and switching a module off for everyone from `/tools`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ui_support import ADMIN, ALICE, COMMAND, PASSWORD, Ui, browser, shared_ui, signed_in, submit, ui_app

from mcpist.auth.users import find_user, set_password
from mcpist.modules.api import Caller
from mcpist.storage.users import OWNER_EMAIL
from mcpist.web.ui._security import CSP
from mcpist.web.ui._store import list_audit

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def ui(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Ui]:
    async with shared_ui(tmp_path_factory.mktemp("flows")) as shared:
        yield shared


async def test_the_oauth_sign_in_page_says_what_to_do_when_nobody_can_sign_in(tmp_path: Path) -> None:
    async with ui_app(tmp_path) as ui, browser(ui) as client:
        page = await client.get("/oauth/login")
        assert page.status_code == 200
        assert "Nobody can sign in yet" in page.text
        assert f"<code>{COMMAND} serve</code>" in page.text
        assert f"<code>{COMMAND} user add you@example.com --password-stdin</code>" in page.text
        assert page.headers["content-security-policy"] == CSP and page.headers["x-frame-options"] == "DENY"
        assert 'href="/static/ui.css"' in page.text
        css = await client.get("/static/ui.css")
        assert css.status_code == 200 and css.headers["content-security-policy"] == CSP
        await set_password(ui.rt.engine, OWNER_EMAIL, PASSWORD)
        assert "Nobody can sign in yet" not in (await client.get("/oauth/login")).text


async def test_the_sign_in_and_connect_pages_speak_japanese(ui: Ui) -> None:
    async with browser(ui, **{"Accept-Language": "ja"}) as client:
        login = await client.get("/oauth/login")
        assert '<html lang="ja">' in login.text and "MCPist にサインイン" in login.text
        english = await client.get("/oauth/login?lang=en")
        assert "Sign in to MCPist" in english.text and 'action="/oauth/login?lang=en"' in english.text
        gone = await client.get("/connect/remote?t=not-a-token")
        assert gone.status_code == 404 and "リンクの期限切れ" in gone.text
        assert gone.headers["content-security-policy"] == CSP
        expired = await client.get("/oauth/consent?request=nope")
        assert expired.status_code == 400 and "MCP クライアントからやり直してください" in expired.text


async def test_an_admin_switches_a_module_off_for_everyone(ui: Ui) -> None:
    async with signed_in(ui, ALICE) as alice:
        refused = await submit(alice, "/tools", "/tools/module", {"module": "demo", "enabled": "off"})
        assert refused.status_code == 403
    alice_caller = Caller(user_id=(await _user_id(ui, ALICE)), email=ALICE)
    assert "demo" in (await ui.rt.principal(alice_caller)).grants.modules
    async with signed_in(ui, ADMIN) as admin:
        off = await submit(admin, "/tools", "/tools/module", {"module": "demo", "enabled": "off"})
        assert off.status_code == 303 and off.headers["location"] == "/tools?done=module_off"
        page = (await admin.get("/tools")).text
        assert 'id="switched-off"' in page and "Switch on" in page
        assert "demo" not in (await ui.rt.principal(alice_caller)).grants.modules
        async with signed_in(ui, ALICE) as alice:
            seen = (await alice.get("/tools")).text
            assert 'id="switched-off"' in seen and "Switch on" not in seen
        bogus = await submit(admin, "/tools", "/tools/module", {"module": "nosuch", "enabled": "off"})
        assert bogus.status_code == 404
        on = await submit(admin, "/tools", "/tools/module", {"module": "demo", "enabled": "on"})
        assert on.status_code == 303
    assert "demo" in (await ui.rt.principal(alice_caller)).grants.modules
    actions = [(e.action, e.target) for e in await list_audit(ui.rt.engine, actor=ADMIN)]
    assert ("module_disable", "demo") in actions and ("module_enable", "demo") in actions


async def _user_id(ui: Ui, email: str) -> str:
    user = await find_user(ui.rt.engine, email)
    assert user is not None
    return user.id
