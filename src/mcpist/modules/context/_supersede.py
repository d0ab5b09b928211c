"""Which earlier constraint a new one replaces, and what a refinement refines.

A constraint is tagged with the slots it speaks about (budget, deadline, head count, ...). A
single-valued slot holds one value, so a new statement about the same slot replaces the old one
when they share a subject word or the new message is a refinement. Multi-valued slots (languages,
tools) only change on an explicit revision. "X ではなく" / "instead of X" names the one replaced.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._text import Language

_I = re.IGNORECASE

# name -> (single-valued, pattern)
SLOTS: dict[str, tuple[bool, re.Pattern[str]]] = {
    "budget": (
        True,
        re.compile(
            r"予算|費用|コスト|金額|価格|値段|料金|家賃|年収|給与|給料|食費|無料|有料|\d\s*(?:万|千)?円|ドル"
            r"|\bbudget|\bcosts?\b|\bprice|\bsalary|\bpay\b|\bfree\b|\bpaid\b|\brent\b|[$€£¥]\s?\d"
            r"|\d\s*k?\s*(?:dollars|euros|usd|eur|yen)\b",
            _I,
        ),
    ),
    "deadline": (
        True,
        re.compile(
            r"期限|締め?切り?|納期|までに|\bdeadline|\bdue\b|\bby (?:the )?(?:end|mid|early|late|next|this)\b"
            r"|\b(?:end|middle|mid)[- ]of\b",
            _I,
        ),
    ),
    "people": (
        True,
        re.compile(
            r"人数|参加者|\d+\s*(?:人|名)|\b\d+\s*(?:people|persons|attendees|guests|participants)\b"
            r"|\b(?:attendees|guests|headcount|participants)\b|\b\d+ of us\b|\b(?:two|three|four|five|six|seven"
            r"|eight|nine|ten|\d+) people\b",
            _I,
        ),
    ),
    "duration": (
        True,
        re.compile(
            r"\d+\s*(?:時間|分|秒)(?!の)|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)[- ]?"
            r"(?:hours?|minutes?|mins?)\b",
            _I,
        ),
    ),
    "frequency": (
        True,
        re.compile(
            r"毎日|毎週|平日|週末|週に?\d|1日|一日|\b(?:days?|times?) (?:a|per) (?:week|month|day)\b|\bweekdays?\b",
            _I,
        ),
    ),
    "schedule": (
        True,
        re.compile(
            r"[月火水木金土日]曜|\d+時(?!間)|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b\d{1,2}\s*(?:am|pm)\b",
            _I,
        ),
    ),
    "length": (
        True,
        re.compile(
            r"文字数|\d+\s*(?:字|文字|枚|ページ|行)|行数|\b\d+\s*(?:words|pages|slides|characters|lines)\b"
            r"|\b(?:word|page|slide) (?:count|limit)\b",
            _I,
        ),
    ),
    "count": (
        True,
        re.compile(
            r"\d+\s*(?:つ|個|章|項目|案)|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
            r"(?:sections|chapters|items|options|points|ideas|examples|bullets)\b",
            _I,
        ),
    ),
    "location": (
        True,
        re.compile(r"場所|勤務地|エリア|地域|会場|\blocation\b|\bvenue\b|\bneighbou?rhood\b|\barea\b", _I),
    ),
    "tone": (
        True,
        re.compile(
            r"口調|トーン|文体|雰囲気|敬語|フォーマル|カジュアル|堅苦し|\btone\b|\bformal\b|\bcasual\b|\bfriendly\b", _I
        ),
    ),
    "database": (
        True,
        re.compile(r"データベース|\bdatabase\b|\bpostgres(?:ql)?\b|\bmysql\b|\bsqlite\b|\bmongodb\b|\boracle\b", _I),
    ),
    "os": (True, re.compile(r"\bwindows\b|\bmacos\b|\bmac\b|\blinux\b|\bios\b|\bandroid\b|\bOS\b", _I)),
    "language": (
        False,
        re.compile(
            r"言語|\bpython\b|\bjava(?:script)?\b|\btypescript\b|\bgo(?:lang)?\b|\brust\b|\bruby\b|\bphp\b|\bkotlin\b"
            r"|\bswift\b|\bc\+\+|\bc#",
            _I,
        ),
    ),
}

_ADDITIVE = re.compile(r"\balso\b|\bas well\b|\badditionally\b|\bin addition\b|さらに|加えて|追加で|あわせて", _I)
_REPLACED_JA = re.compile(r"([^\s、。,]{1,30}?)(?:ではなく|じゃなくて|じゃなく|でなく|の代わりに|をやめて)")
_REPLACED_EN = re.compile(
    r"\b(?:instead of|rather than|not|replace|drop|no longer)\s+([a-z0-9$€£¥][^,.;!?]{0,40}?)"
    r"(?=\s*(?:,|\.|;|$|but\b|with\b))",
    _I,
)


def slots_of(text: str) -> frozenset[str]:
    return frozenset(name for name, (_, pattern) in SLOTS.items() if pattern.search(text))


def replaced_phrases(text: str, language: Language) -> list[str]:
    """The phrases an explicit revision names as replaced ("X ではなく", "instead of X")."""
    pattern = _REPLACED_JA if language == "ja" else _REPLACED_EN
    return [m.group(1).strip() for m in pattern.finditer(text) if m.group(1).strip()]


def is_additive(text: str) -> bool:
    return _ADDITIVE.search(text) is not None


@dataclass(frozen=True)
class Candidate:
    """An active item a new statement may replace or refine."""

    id: str
    kind: str  # "problem" | "constraint" | "refinement"
    slots: frozenset[str]
    terms: frozenset[str]


@dataclass(frozen=True)
class Statement:
    slots: frozenset[str]
    terms: frozenset[str]
    replaced_terms: frozenset[str]
    refinement: bool
    additive: bool


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def superseded(new: Statement, active: Sequence[Candidate]) -> list[str]:
    """Ids of the active constraints and refinements that `new` replaces."""
    out: list[str] = []
    for old in active:
        if old.kind == "problem":
            continue
        if new.replaced_terms and old.terms & new.replaced_terms:
            out.append(old.id)
            continue
        shared = new.slots & old.slots
        single = any(SLOTS[name][0] for name in shared)
        if (
            (shared and single and (old.terms & new.terms or new.refinement))
            or (shared and new.refinement and not new.additive)
            or (new.refinement and not new.additive and _jaccard(new.terms, old.terms) >= 0.5)
        ):
            out.append(old.id)
    return out


def refined(new: Statement, active: Sequence[Candidate]) -> str | None:
    """The active item a refinement attaches to: most shared words, else the latest problem."""
    best: tuple[int, int] | None = None
    for position, old in enumerate(active):
        overlap = len(old.terms & new.terms) + len(old.slots & new.slots)
        if overlap and (best is None or (overlap, position) > (best[0], best[1])):
            best = (overlap, position)
    if best is not None:
        return active[best[1]].id
    problems = [old.id for old in active if old.kind == "problem"]
    return problems[-1] if problems else None
