"""Japanese and English: the language from the profile, else Accept-Language; dates in the reader's locale
and time zone; every string of the UI in both catalogues, and no English left on a Japanese page."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from ui_support import ADMIN, ALICE, Ui, browser, shared_ui, signed_in, submit

from mcpist.sieve import get_role
from mcpist.web.ui._i18n import CATALOGUES, Formatter, negotiate

pytestmark = pytest.mark.anyio

WEB = Path(__file__).resolve().parents[2] / "src" / "mcpist" / "web"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
# what a Japanese page may show in Latin letters: product and protocol names, the data of the test modules
LATIN_ALLOWED = {"MCPist", "MCP", "API", "OAuth", "HTTP Basic", "UTC", "English", "Authorization: Bearer TOKEN"}
# example permission patterns in placeholders are code
LATIN_ALLOWED |= {"memory.*", "github.@read", "github.delete_repo"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def ui(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Ui]:
    async with shared_ui(tmp_path_factory.mktemp("ui")) as shared:
        yield shared


def catalogue(language: str) -> dict[str, object]:
    with (CATALOGUES / language / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        found = read_po(fh, locale=language)
    assert not found.fuzzy
    return {m.id if isinstance(m.id, str) else m.id[0]: m for m in found if m.id}


def extracted() -> set[str]:
    method_map = [("**.py", "python"), ("**/templates/**.html", "jinja2")]
    options = {
        "**/templates/**.html": {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"}
    }
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(str(WEB), method_map, options, keywords):
        found.add(message if isinstance(message, str) else message[0])
    return found


def test_every_string_of_the_ui_is_in_both_catalogues_and_translated() -> None:
    source = extracted()
    assert len(source) > 200
    for language in ("en", "ja"):
        messages = catalogue(language)
        assert source == set(messages), f"{language}: run pybabel extract/update (see src/mcpist/web/i18n/babel.cfg)"
    for msgid, message in catalogue("ja").items():
        strings = message.string if isinstance(message.string, tuple) else (message.string,)  # type: ignore[attr-defined]
        assert all(strings), f"no Japanese for {msgid!r}"
        assert "fuzzy" not in message.flags, msgid  # type: ignore[attr-defined]
        for text in strings:
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(msgid)), msgid


def test_the_language_comes_from_accept_language_weights() -> None:
    assert negotiate("ja,en-US;q=0.8", "en") == "ja"
    assert negotiate("en-GB,ja;q=0.9", "ja") == "en"
    assert negotiate("fr-FR, ja;q=0.5, en;q=0.4", "en") == "ja"
    assert negotiate("fr, de", "ja") == "ja"
    assert negotiate("ja;q=0, en;q=0.1", "en") == "en"
    assert negotiate("ja;q=bogus, en", "ja") == "en"
    assert negotiate(None, "en") == "en"


def test_dates_follow_the_readers_locale_and_time_zone() -> None:
    moment = datetime(2026, 1, 5, 0, 0, tzinfo=UTC)
    assert Formatter("ja", "Asia/Tokyo").when(moment) == "2026/01/05 9:00:00"
    assert Formatter("en", None).when(moment) == "Jan 5, 2026, 12:00:00\u202fAM"
    assert Formatter("en", "Not/AZone").when(moment) == Formatter("en", "UTC").when(moment)
    assert Formatter("ja").number(12345) == "12,345"


async def test_signed_out_pages_follow_the_browser(ui: Ui) -> None:
    async with browser(ui, **{"Accept-Language": "ja,en;q=0.5"}) as client:
        page = (await client.get("/login")).text
        assert '<html lang="ja">' in page and "MCPist にサインイン" in page
        assert "Sign in to MCPist" in (await client.get("/login?lang=en")).text
    async with browser(ui, **{"Accept-Language": "en-US,en;q=0.9"}) as client:
        page = (await client.get("/login")).text
        assert '<html lang="en">' in page and "Sign in to MCPist" in page


async def test_the_profile_language_wins_over_the_browser(ui: Ui) -> None:
    async with signed_in(ui, ALICE, **{"Accept-Language": "en"}) as alice:
        assert "Dashboard" in (await alice.get("/")).text
        switched = await submit(alice, "/tools", "/profile/language", {"language": "ja", "next": "/tools"})
        assert switched.status_code == 303 and switched.headers["location"] == "/tools"
        page = (await alice.get("/tools")).text
        assert '<html lang="ja">' in page and "ツール一覧" in page
        back = await submit(alice, "/", "/profile/language", {"language": "en", "next": "//evil.test"})
        assert back.headers["location"] == "/"
        assert '<html lang="en">' in (await alice.get("/")).text


async def test_japanese_pages_carry_no_english_ui_text(ui: Ui) -> None:
    basic = await get_role(ui.rt.engine, "basic")
    assert basic is not None
    data = {m.summary for m in ui.rt.registry} | {ADMIN, ALICE}
    async with signed_in(ui, ADMIN, **{"Accept-Language": "ja"}) as admin:
        users = (await admin.get("/users")).text
        some_user = re.search(r'href="/users\?id=([^"]+)"', users)
        assert some_user is not None
        for path in [
            "/",
            "/profile",
            "/tools",
            "/tools?connect=remote",
            "/users",
            f"/users?id={some_user.group(1)}",
            f"/users?id={some_user.group(1)}&tab=roles",
            "/roles",
            f"/roles?id={basic.id}",
            f"/roles?id={basic.id}&tab=permissions",
            f"/roles?id={basic.id}&service=calendar",
            "/logs",
            "/logs?view=admin",
            "/settings",
            "/nowhere",
        ]:
            page = (await admin.get(path)).text
            assert '<html lang="ja">' in page, path
            assert not english_left(page, data), (path, english_left(page, data))


def english_left(page: str, data: set[str]) -> list[str]:
    """Runs of English words in the page's visible text and attribute labels, outside code and data."""
    body = page.split("<body>", 1)[1]
    body = re.sub(r"<(code|option|time|textarea)[^>]*>.*?</\1>", " ", body, flags=re.S)
    labels = " ".join(re.findall(r'(?:placeholder|aria-label|data-confirm)="([^"]*)"', body))
    text = html.unescape(re.sub(r"<[^>]+>", "\n", body) + "\n" + labels)
    for allowed in sorted(data | LATIN_ALLOWED, key=len, reverse=True):
        text = text.replace(allowed, " ")
    return [run for run in re.findall(r"[A-Za-z][a-z]+(?:[ ,.:-]+[A-Za-z][a-z]+)+", text)]
