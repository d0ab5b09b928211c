"""The pages every signed-in user has: dashboard, profile (API tokens), tools (accounts, connect, request
access), for an admin and for a plain user."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import pytest
from ui_support import ADMIN, ALICE, Ui, csrf, shared_ui, signed_in, submit

from mcpist.auth.tokens import TokenStore
from mcpist.vault.broker import TokenBroker

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def ui(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Ui]:
    async with shared_ui(tmp_path_factory.mktemp("ui")) as shared:
        yield shared


def broker(ui: Ui) -> TokenBroker:
    assert isinstance(ui.rt.accounts, TokenBroker)
    return ui.rt.accounts


async def test_the_dashboard_of_an_admin_counts_and_of_a_user_shows_roles(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as admin:
        page = (await admin.get("/")).text
        assert "This server" in page and "Needs attention" in page and "security events today" in page
        assert 'href="/users"' in page and 'aria-current="page"' in page
    async with signed_in(ui, ALICE) as alice:
        page = (await alice.get("/")).text
        assert "This server" not in page and "Needs attention" not in page
        assert '<span class="badge none">basic</span>' in page
        assert "They let you use 3 tools in 2 modules." in page


async def test_a_token_is_shown_once_listed_and_revoked(ui: Ui) -> None:
    store = TokenStore(ui.rt.engine)
    async with signed_in(ui, ALICE) as alice:
        created = await submit(alice, "/profile", "/profile/tokens", {"name": "alice-laptop", "role": "basic"})
        assert created.status_code == 201
        shown = re.search(r'<code class="secret" id="new-token">(mcpist_[^<]+)</code>', created.text)
        assert shown is not None
        token = shown.group(1)
        info = await store.verify(token)
        assert info is not None and info.email == ALICE
        listed = (await alice.get("/profile")).text
        assert token not in listed and "alice-laptop" in listed and info.prefix in listed
        # a name taken, and a bad name, are explained on the page
        taken = await submit(alice, "/profile", "/profile/tokens", {"name": "alice-laptop"})
        assert taken.status_code == 400 and "already exists" in taken.text
        bad = await submit(alice, "/profile", "/profile/tokens", {"name": "no spaces"})
        assert bad.status_code == 400 and "The input is not valid." in bad.text
    async with signed_in(ui, ADMIN) as admin:
        # an admin's profile lists only their own tokens, and cannot revoke Alice's from there
        assert "alice-laptop" not in (await admin.get("/profile")).text
        refused = await submit(admin, "/profile", "/profile/tokens/revoke", {"name": "alice-laptop"})
        assert refused.status_code == 404
        assert await store.verify(token) is not None
    async with signed_in(ui, ALICE) as alice:
        revoked = await submit(alice, "/profile", "/profile/tokens/revoke", {"name": "alice-laptop"})
        assert revoked.status_code == 303
        assert "The token is revoked." in (await alice.get(revoked.headers["location"])).text
        assert await store.verify(token) is None


async def test_profile_settings_are_saved(ui: Ui) -> None:
    async with signed_in(ui, ALICE) as alice:
        saved = await submit(
            alice, "/profile", "/profile", {"display_name": "Alice  A.", "language": "", "time_zone": "Asia/Tokyo"}
        )
        assert saved.status_code == 303
        page = (await alice.get("/profile")).text
        assert "Alice A." in page and "<option selected>Asia/Tokyo</option>" in page
        bad = await submit(alice, "/profile", "/profile", {"display_name": "x", "language": "fr", "time_zone": ""})
        assert bad.status_code == 400
        bad = await submit(
            alice, "/profile", "/profile", {"display_name": "x", "language": "", "time_zone": "Mars/Base"}
        )
        assert bad.status_code == 400


async def test_tools_show_access_and_account_state(ui: Ui) -> None:
    async with signed_in(ui, ALICE) as alice:
        page = (await alice.get("/tools")).text
        usable = page.split('id="unusable"')[0]
        # demo: two allowed, the rest collapsed; remote: needs an account she has not connected
        assert "<code>echo</code>" in usable and "<code>add</code>" in usable
        assert "more tools you may not use" in usable
        assert 'id="mod-remote"' in usable and "not connected" in usable
        # calendar is not hers at all: collapsed with the modules she may not use
        assert 'id="mod-calendar"' in page.split('id="unusable"')[1]


async def test_a_pasted_key_connects_an_account_and_is_never_shown(ui: Ui) -> None:
    secret = "key-9f8e7d6c5b4a"
    async with signed_in(ui, ALICE) as alice:
        panel = await alice.get("/tools?connect=remote")
        assert "Connect remote" in panel.text and 'name="secret"' in panel.text
        done = await alice.post(
            "/tools/connect",
            data={"csrf": csrf(panel.text), "service": "remote", "name": "work", "secret": secret},
        )
        assert done.status_code == 303
        page = (await alice.get(done.headers["location"])).text
        assert "The account is connected." in page and "remote:work" in page and "personal account" in page
        assert secret not in page
        accounts = await broker(ui).accounts.find("remote")
        assert [(a.name, a.user_email) for a in accounts] == [("work", ALICE)]
        # she may not connect a service she may not use
        refused = await submit(alice, "/tools", "/tools/connect", {"service": "calendar", "secret": "x"})
        assert refused.status_code == 403
        gone = await submit(alice, "/tools", "/tools/disconnect", {"service": "remote", "name": "work"})
        assert gone.status_code == 303
        assert await broker(ui).accounts.find("remote") == []


async def test_an_oauth_service_redirects_to_its_connect_flow(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as admin:
        panel = (await admin.get("/tools?connect=calendar")).text
        assert "an admin must first register its OAuth app" in panel
        await broker(ui).apps.put("calendar", "client-1", "client-secret")
        panel = (await admin.get("/tools?connect=calendar")).text
        assert "Continue to calendar" in panel
        started = await admin.post(
            "/tools/connect", data={"csrf": csrf(panel), "service": "calendar", "name": "default", "read_only": "on"}
        )
        assert started.status_code == 303
        location = started.headers["location"]
        assert location.startswith("http://127.0.0.1:8765/connect/calendar?t=")
        # the vault's connect page sends the browser to the provider, asking only for read-only scopes
        provider = await admin.get(urlsplit(location).path + "?" + urlsplit(location).query)
        assert provider.status_code == 302
        params = parse_qs(urlsplit(provider.headers["location"]).query)
        assert params["scope"] == ["cal.read"] and params["client_id"] == ["client-1"]
        await broker(ui).apps.remove("calendar")


async def test_a_user_requests_access_and_admins_see_it(ui: Ui) -> None:
    async with signed_in(ui, ALICE) as alice:
        done = await submit(alice, "/tools", "/tools/request", {"module": "calendar", "reason": "team  agenda"})
        assert done.status_code == 303
        assert "Your request is recorded" in (await alice.get(done.headers["location"])).text
        unknown = await submit(alice, "/tools", "/tools/request", {"module": "nope"})
        assert unknown.status_code == 404
    async with signed_in(ui, ADMIN) as admin:
        page = (await admin.get("/")).text
        assert "Access requests of the last week" in page and "calendar.*" in page and "team agenda" in page
        logs = (await admin.get("/logs?view=admin&kind=access_request")).text
        assert ALICE in logs and "calendar.*" in logs
