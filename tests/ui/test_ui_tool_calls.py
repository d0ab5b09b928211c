"""`/logs?view=calls`: the audit of tool calls, newest first, filtered by user, module and outcome,
paginated, in both languages; and the dashboard's counts of today's calls and errors."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from test_ui_i18n import english_left
from ui_support import ADMIN, ALICE, Ui, shared_ui, signed_in

from mcpist.auth.users import list_users
from mcpist.errors import NotFound
from mcpist.modules.api import Caller

pytestmark = pytest.mark.anyio

SECRET = "tool-argument-never-shown-5d1e"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def ui(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Ui]:
    async with shared_ui(tmp_path_factory.mktemp("ui"), web={"page_size": 10}) as shared:
        by_email = {u.email: u for u in await list_users(shared.rt.engine)}
        alice = Caller(user_id=by_email[ALICE].id, email=ALICE)
        admin = Caller(user_id=by_email[ADMIN].id, email=ADMIN)
        for n in range(11):
            await shared.rt.execute(alice, "demo", "echo", {"text": f"{SECRET}-{n}"})
        with pytest.raises(NotFound):
            await shared.rt.execute(alice, "demo", "fail", {})  # not among Alice's tools
        await shared.rt.execute(admin, "demo", "add", {"a": 1}, via="batch")
        assert shared.rt.observer.audit is not None
        await shared.rt.observer.audit.flush()
        yield shared


def calls(page: str) -> list[str]:
    return re.findall(r"<td><code>(demo\.\w+)</code></td>", page)


async def test_the_tool_calls_are_listed_newest_first_and_paginated(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as admin:
        first = (await admin.get("/logs?view=calls")).text
        second = (await admin.get("/logs?view=calls&page=2")).text
    assert calls(first) == ["demo.add", "demo.fail"] + ["demo.echo"] * 8
    assert 'rel="next"' in first and "<code>batch</code>" in first and "<code>NOT_FOUND</code>" in first
    assert calls(second) == ["demo.echo"] * 3 and 'rel="prev"' in second
    assert SECRET not in first + second
    assert first.count(ALICE) >= 9


async def test_the_tool_calls_filter_by_user_module_and_outcome(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as admin:
        errors = (await admin.get(f"/logs?view=calls&user={ALICE}&outcome=errors")).text
        admins = (await admin.get(f"/logs?view=calls&user={ADMIN}&module=demo&outcome=ok")).text
        nobody = (await admin.get("/logs?view=calls&outcome=UNAVAILABLE")).text
        ignored = (await admin.get("/logs?view=calls&module=nope&outcome=bogus")).text
    assert calls(errors) == ["demo.fail"]
    assert calls(admins) == ["demo.add"]
    assert "Nothing recorded." in nobody
    assert len(calls(ignored)) == 10  # an unknown module or outcome filters nothing
    assert '<option value="errors" selected>' in errors


async def test_the_dashboard_counts_todays_calls_and_errors(ui: Ui) -> None:
    async with signed_in(ui, ADMIN) as admin:
        page = (await admin.get("/")).text
    assert re.search(r'<span class="n">13</span> <a href="/logs\?view=calls">tool calls today</a>', page)
    assert re.search(r'<span class="n">1</span> <a href="/logs\?view=calls&amp;outcome=errors">', page)


async def test_the_tool_calls_view_is_japanese_throughout(ui: Ui) -> None:
    async with signed_in(ui, ADMIN, **{"Accept-Language": "ja"}) as admin:
        page = (await admin.get("/logs?view=calls")).text
        dashboard = (await admin.get("/")).text
    assert '<html lang="ja">' in page and "ツール呼び出し" in page and "今日のツール呼び出し" in dashboard
    assert not english_left(page, {ADMIN, ALICE}), english_left(page, {ADMIN, ALICE})
