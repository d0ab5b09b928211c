"""Signing in and out of the UI, and the first run: the one-time set-up link, the hints naming the command
as the operator runs it, and a client that then connects by URL (OAuth) in one go."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ui_support import ADMIN, ALICE, COMMAND, PASSWORD, browser, csrf, people, sign_in, ui_app

from mcpist import cli
from mcpist.storage.users import get_owner
from mcpist.web.ui import setup_link
from oauth_support import authorize, exchange, mcp_status, register

pytestmark = pytest.mark.anyio


def path_of(link: str) -> str:
    return link.split("8765", 1)[1]


async def test_the_set_up_link_sets_the_owner_once(tmp_path: Path) -> None:
    async with ui_app(tmp_path) as ui:
        link = await setup_link(ui.rt)
        assert link is not None and link.startswith("http://127.0.0.1:8765/setup?t=")
        async with browser(ui) as client:
            # before: the sign-in page says why nobody can sign in, naming the command as it is run
            login = await client.get("/login")
            assert "Nobody can sign in yet" in login.text
            assert f"<code>{COMMAND} serve</code>" in login.text
            page = await client.get(path_of(link))
            assert page.status_code == 200 and "Set up MCPist" in page.text
            form = {"csrf": csrf(page.text), "t": link.split("t=")[1], "email": "Me@Example.com"}
            differ = await client.post("/setup", data={**form, "password": PASSWORD, "confirm": "other password"})
            assert differ.status_code == 400 and "The two passwords differ." in differ.text
            short = await client.post("/setup", data={**form, "password": "short", "confirm": "short"})
            assert short.status_code == 400
            done = await client.post("/setup", data={**form, "password": PASSWORD, "confirm": PASSWORD})
            assert done.status_code == 303 and done.headers["location"] == "/"
            home = await client.get("/")
            assert home.status_code == 200 and "me@example.com" in home.text
            # single use: the owner has a password now
            again = await client.get(path_of(link))
            assert again.status_code == 404 and "already used or has expired" in again.text
            reused = await client.post("/setup", data={**form, "password": PASSWORD, "confirm": PASSWORD})
            assert reused.status_code == 404
        owner = await get_owner(ui.rt.engine)
        assert owner is not None and owner.email == "me@example.com" and owner.id == ui.rt.owner.id
        assert await setup_link(ui.rt) is None
        async with browser(ui) as client:
            assert "Nobody can sign in yet" not in (await client.get("/login")).text
            # then a client that connects by URL signs in with that email and password in one go
            registered = await register(client)
            code, verifier = await authorize(client, registered["client_id"], "me@example.com", PASSWORD)
            tokens = await exchange(client, registered["client_id"], code, verifier)
            assert tokens.status_code == 200, tokens.text
            assert await mcp_status(client, tokens.json()["access_token"]) == 200


async def test_an_expired_or_forged_set_up_link_is_refused(tmp_path: Path) -> None:
    async with ui_app(tmp_path) as ui:
        old = await setup_link(ui.rt, now=1_000_000.0)
        assert old is not None
        good = await setup_link(ui.rt)
        assert good is not None
        forged = good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB")
        async with browser(ui) as client:
            for link in (old, forged, "http://127.0.0.1:8765/setup", "http://127.0.0.1:8765/setup?t=x.y"):
                response = await client.get(path_of(link))
                assert response.status_code == 404, link


async def test_sign_in_and_out(tmp_path: Path) -> None:
    async with ui_app(tmp_path) as ui:
        await people(ui.rt)
        async with browser(ui) as client:
            wrong = await sign_in(client, ALICE, "not her password")
            assert wrong.status_code == 403 and "Wrong email or password." in wrong.text
            ok = await sign_in(client, ALICE)
            assert ok.status_code == 303
            home = await client.get("/")
            assert home.status_code == 200 and "basic" in home.text
            out = await client.post("/logout", data={"csrf": csrf(home.text)})
            assert out.status_code == 303 and out.headers["location"] == "/login"
            assert (await client.get("/")).status_code == 303


async def test_repeated_failures_are_slowed_down_like_the_oauth_sign_in(tmp_path: Path) -> None:
    async with ui_app(tmp_path, auth={"login_max_failures": 2, "login_backoff_s": 600}) as ui:
        await people(ui.rt)
        async with browser(ui) as client:
            for _ in range(2):
                assert (await sign_in(client, ALICE, "guess guess")).status_code == 403
            blocked = await sign_in(client, ALICE)
            assert blocked.status_code == 429 and "Too many failed sign-ins" in blocked.text
            assert int(blocked.headers["retry-after"]) > 0


def test_hints_name_the_command_as_it_was_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [".venv/bin/mcpist", "serve"])
    assert cli._command_name() == ".venv/bin/mcpist"
    monkeypatch.setattr(sys, "argv", ["/opt/my tools/bin/mcpist", "serve"])
    assert cli._command_name() == "'/opt/my tools/bin/mcpist'"
    monkeypatch.setattr(sys, "argv", ["-c"])
    assert cli._command_name() == "mcpist"


async def test_a_disabled_user_cannot_sign_in(tmp_path: Path) -> None:
    async with ui_app(tmp_path) as ui:
        await people(ui.rt)
        async with browser(ui) as admin:
            await sign_in(admin, ADMIN)
            users = await admin.get("/users")
            alice_id = users.text.split(ALICE)[0].rsplit("id=", 1)[1].split('"')[0]
            page = await admin.get(f"/users?id={alice_id}")
            assert (
                await admin.post("/users/disable", data={"csrf": csrf(page.text), "id": alice_id})
            ).status_code == 303
        async with browser(ui) as client:
            refused = await sign_in(client, ALICE)
            assert refused.status_code == 403 and "This account is disabled" in refused.text
