"""The admin pages: users (add, make admin, disable and enable, password, roles), roles (create, edit with
the live preview, delete, shared accounts, OAuth apps) and logs; every action recorded."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from ui_support import ADMIN, ALICE, PASSWORD, Ui, csrf, shared_ui, signed_in, submit

from mcpist.auth.tokens import TokenStore
from mcpist.auth.users import check_password
from mcpist.modules.api import Caller
from mcpist.sieve import get_role, prepare_token, record_security_event, roles_of
from mcpist.storage.users import get_user
from mcpist.vault.broker import TokenBroker
from mcpist.web.ui._store import list_audit

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def ui(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Ui]:
    async with shared_ui(tmp_path_factory.mktemp("ui")) as shared:
        yield shared


async def actions(ui: Ui) -> list[tuple[str, str]]:
    return [(a.action, a.target) for a in await list_audit(ui.rt.engine, limit=500)]


def user_id(page: str, email: str) -> str:
    found = re.search(r'href="/users\?id=([^"]+)"[^>]*>' + re.escape(email) + "<", page)
    assert found, page[:3000]
    return found.group(1)


async def test_users_are_added_promoted_and_given_roles(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as admin:
        added = await submit(
            admin, "/users", "/users/add", {"email": "bob@example.com", "password": "bobs password", "role": "basic"}
        )
        assert added.status_code == 303
        page = (await admin.get(added.headers["location"])).text
        assert "The user is added." in page and "bob@example.com" in page
        bob = user_id(page, "bob@example.com")
        assert await roles_of(ui.rt.engine, "bob@example.com") == ["basic"]
        assert await check_password(ui.rt.engine, "bob@example.com", "bobs password") is not None
        duplicate = await submit(admin, "/users", "/users/add", {"email": "bob@example.com"})
        assert duplicate.status_code == 400 and "exists" in duplicate.text
        # roles tab: tick admin, untick basic
        tab = await admin.get(f"/users?id={bob}&tab=roles")
        assert 'value="basic" checked' in tab.text
        saved = await admin.post("/users/roles", data={"csrf": csrf(tab.text), "id": bob, "role": "admin"})
        assert saved.status_code == 303
        assert await roles_of(ui.rt.engine, "bob@example.com") == ["admin"]
        promoted = await submit(admin, f"/users?id={bob}", "/users/admin", {"id": bob, "admin": "on"})
        assert promoted.status_code == 303
        found = await get_user(ui.rt.engine, bob)
        assert found is not None and found.system_role == "admin"
        password = await submit(admin, f"/users?id={bob}", "/users/password", {"id": bob, "password": "a new password"})
        assert password.status_code == 303
        assert await check_password(ui.rt.engine, "bob@example.com", "a new password") is not None
        # an admin cannot take their own rights, and the owner stays an admin
        me = user_id(page, ADMIN)
        assert (await submit(admin, "/users", "/users/admin", {"id": me})).status_code == 400
        assert (await submit(admin, "/users", "/users/disable", {"id": me})).status_code == 400
        demoted = await submit(admin, "/users", "/users/admin", {"id": bob})
        assert demoted.status_code == 303
    recorded = await actions(ui)
    for entry in [
        ("user_add", "bob@example.com"),
        ("user_roles", "bob@example.com"),
        ("user_system_role", "bob@example.com"),
        ("user_password", "bob@example.com"),
    ]:
        assert entry in recorded
    assert not any("a new password" in a.detail for a in await list_audit(ui.rt.engine, limit=500))


async def test_disabling_takes_roles_and_tokens_and_enabling_gives_roles_back(ui: Ui) -> None:
    store = TokenStore(ui.rt.engine)
    new = await prepare_token(ui.rt.engine, email=ALICE)
    _, token = await store.create("alice-cli", new.user_id, then=new.narrow)
    async with signed_in(ui, ALICE) as session:  # a browser of hers, signed in before she is disabled
        assert (await session.get("/")).status_code == 200
    async with signed_in(ui, ADMIN) as admin:
        page = (await admin.get("/users")).text
        alice_id = user_id(page, ALICE)
        disabled = await submit(admin, f"/users?id={alice_id}", "/users/disable", {"id": alice_id})
        assert disabled.status_code == 303
        assert "disabled since" in (await admin.get(f"/users?id={alice_id}")).text
        assert await roles_of(ui.rt.engine, ALICE) == []
        assert await store.verify(token) is None
        principal = await ui.rt.principal(Caller(user_id=alice_id, email=ALICE))
        assert principal.grants.tools == frozenset()
        # her session is refused at once
        async with signed_in(ui, ALICE) as session:
            assert (await session.get("/")).status_code == 303
        enabled = await submit(admin, f"/users?id={alice_id}", "/users/enable", {"id": alice_id})
        assert enabled.status_code == 303
        assert await roles_of(ui.rt.engine, ALICE) == ["basic"]
    async with signed_in(ui, ALICE) as session:
        assert (await session.get("/")).status_code == 200
    assert ("user_disable", ALICE) in await actions(ui)
    assert ("user_enable", ALICE) in await actions(ui)


async def test_roles_are_created_edited_with_a_preview_and_deleted(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as admin:
        bad = await submit(admin, "/roles", "/roles/create", {"name": "readers", "allow": "nosuch.*"})
        assert bad.status_code == 400 and "unknown module" in bad.text
        created = await submit(
            admin, "/roles", "/roles/create", {"name": "readers", "allow": "demo.@read", "description": "Read"}
        )
        assert created.status_code == 303
        page = await admin.get(created.headers["location"])
        assert "The role is created." in page.text and "Visible tools" in page.text
        assert "<code>echo</code>" in page.text and "<code>fail</code>" not in page.text
        # the live preview answers a fragment for the page's script, without saving
        fragment = await admin.post(
            "/roles/preview",
            data={"csrf": csrf(page.text), "allow": "demo.*\nremote.*", "deny": "demo.fail"},
            headers={"X-UI-Fragment": "1"},
        )
        assert fragment.status_code == 200 and "<html" not in fragment.text
        assert "<code>whoami</code>" in fragment.text and "<code>fail</code>" not in fragment.text
        wrong = await admin.post(
            "/roles/preview", data={"csrf": csrf(page.text), "allow": "demo.nosuch"}, headers={"X-UI-Fragment": "1"}
        )
        assert "unknown tool" in wrong.text
        role = await get_role(ui.rt.engine, "readers")
        assert role is not None and role.allow == ("demo.@read",)
        saved = await admin.post(
            "/roles/update",
            data={
                "csrf": csrf(page.text),
                "role": "readers",
                "allow": "demo.*",
                "deny": "demo.fail",
                "description": "",
            },
        )
        assert saved.status_code == 303
        role = await get_role(ui.rt.engine, "readers")
        assert role is not None and role.allow == ("demo.*",) and role.deny == ("demo.fail",)
        builtin = await admin.post("/roles/update", data={"csrf": csrf(page.text), "role": "admin", "allow": "demo.*"})
        assert builtin.status_code == 400 and "built in" in builtin.text
        deleted = await admin.post("/roles/delete", data={"csrf": csrf(page.text), "role": "readers"})
        assert deleted.status_code == 303
        assert await get_role(ui.rt.engine, "readers") is None
    recorded = await actions(ui)
    assert ("role_create", "readers") in recorded and ("role_update", "readers") in recorded
    assert ("role_delete", "readers") in recorded


async def test_shared_accounts_and_oauth_apps_per_service(ui: Ui) -> None:
    assert isinstance(ui.rt.accounts, TokenBroker)
    broker = ui.rt.accounts
    basic = await get_role(ui.rt.engine, "basic")
    assert basic is not None
    async with signed_in(ui, ADMIN) as admin:
        panel = await admin.get(f"/roles?id={basic.id}&service=remote")
        assert "Shared remote accounts of this role" in panel.text
        added = await admin.post(
            "/roles/account",
            data={
                "csrf": csrf(panel.text),
                "role": "basic",
                "service": "remote",
                "name": "team",
                "secret": "team-key-42",
            },
        )
        assert added.status_code == 303
        page = (await admin.get(added.headers["location"])).text
        assert "remote:team" in page and "team-key-42" not in page
        [account] = await broker.accounts.find("remote")
        assert account.role == "basic" and account.name == "team"
        removed = await admin.post(
            "/roles/account/remove",
            data={"csrf": csrf(page), "role": "basic", "service": "remote", "name": "team"},
        )
        assert removed.status_code == 303
        assert await broker.accounts.find("remote") == []
        # calendar uses OAuth: the app first, then the flow starts for the role
        panel = await admin.get(f"/roles?id={basic.id}&service=calendar")
        assert "http://127.0.0.1:8765/connect/calendar/callback" in panel.text
        app = await admin.post(
            "/roles/app",
            data={
                "csrf": csrf(panel.text),
                "service": "calendar",
                "client_id": "cid",
                "client_secret": "cs-secret",
                "back_id": basic.id,
            },
        )
        assert app.status_code == 303
        page = (await admin.get(app.headers["location"])).text
        assert "<code>cid</code>" in page and "cs-secret" not in page
        started = await admin.post(
            "/roles/account", data={"csrf": csrf(page), "role": "basic", "service": "calendar", "name": "team"}
        )
        assert started.status_code == 303 and "/connect/calendar?t=" in started.headers["location"]
        gone = await admin.post("/roles/app", data={"csrf": csrf(page), "service": "calendar", "remove": "1"})
        assert gone.status_code == 303
        assert await broker.apps.get("calendar") is None
    recorded = await actions(ui)
    assert ("account_add", "remote:team") in recorded and ("oauth_app_register", "calendar") in recorded


async def test_logs_show_security_events_filtered_and_paginated(ui: Ui) -> None:
    for n in range(60):
        await record_security_event(
            ui.rt.engine, user_id=None, token_id=None, module="demo", tool=f"t{n}", kind="unknown_tool_call", via="call"
        )
    async with signed_in(ui, ADMIN) as admin:
        first = (await admin.get("/logs")).text
        assert "<code>demo.t59</code>" in first and "<code>demo.t9</code>" not in first and 'rel="next"' in first
        second = (await admin.get("/logs?view=security&page=2")).text
        assert "<code>demo.t9</code>" in second and 'rel="prev"' in second
        none = (await admin.get("/logs?view=security&kind=hidden_tool_call")).text
        assert "Nothing recorded." in none
        audit = (await admin.get(f"/logs?view=admin&user={ADMIN}")).text
        assert "Admin actions and requests" in audit


async def test_every_admin_page_renders_with_panels(ui: Ui) -> None:
    basic = await get_role(ui.rt.engine, "basic")
    assert basic is not None
    async with signed_in(ui, ADMIN) as admin:
        users = (await admin.get("/users")).text
        alice = user_id(users, ALICE)
        for path in [
            "/users",
            f"/users?id={alice}",
            f"/users?id={alice}&tab=roles",
            "/roles",
            f"/roles?id={basic.id}",
            f"/roles?id={basic.id}&tab=permissions",
            f"/roles?id={basic.id}&service=remote",
            "/logs?view=admin",
            "/logs?page=abc",
        ]:
            response = await admin.get(path)
            assert response.status_code == 200, path
    assert PASSWORD not in str(await actions(ui))
