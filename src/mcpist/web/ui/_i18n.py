"""Languages of the UI: gettext catalogues (`web/i18n/<lang>/LC_MESSAGES/messages.po`, compiled in
memory with Babel when first used, so no build step and no stale `.mo`), the choice of language
(the user's profile, else Accept-Language, else the default) and dates in the reader's locale."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from io import BytesIO
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations

from ._store import LANGUAGES

CATALOGUES = Path(__file__).resolve().parents[1] / "i18n"
DOMAIN = "messages"
UTC_ZONE = ZoneInfo("UTC")


def N_(message: str) -> str:
    """Marks a string for the catalogue where it is defined; it is translated where it is shown."""
    return message


@cache
def translations(language: str) -> Translations:
    """The catalogue of `language` (one of LANGUAGES), compiled once per process."""
    if language not in LANGUAGES:
        raise ValueError(f"no catalogue for language {language!r}")
    path = CATALOGUES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as fh:
        catalog = read_po(fh, locale=language, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def negotiate(accept_language: str | None, default: str) -> str:
    """The supported language the browser prefers most (RFC 9110 quality values), else `default`."""
    best, best_q = default, 0.0
    for position, part in enumerate((accept_language or "").split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        q -= position * 1e-6  # the earlier of equal weights wins
        if primary in LANGUAGES and q > best_q:
            best, best_q = primary, q
    return best


def zone(name: str | None) -> ZoneInfo:
    if not name:
        return UTC_ZONE
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC_ZONE


class Formatter:
    """Dates and numbers for one reader: their language and time zone."""

    def __init__(self, language: str, time_zone: str | None = None) -> None:
        self.language = language
        self.zone = zone(time_zone)

    def when(self, value: datetime | None) -> str:
        if value is None:
            return ""
        return format_datetime(value, "medium", tzinfo=self.zone, locale=self.language)

    def number(self, value: int) -> str:
        return format_decimal(value, locale=self.language)

    def iso(self, value: datetime | None) -> str:
        return value.isoformat() if value is not None else ""
