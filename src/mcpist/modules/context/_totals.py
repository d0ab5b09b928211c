"""A new total said with the change that leads to it: "three new lads joined so we're on 17" after "got 14
kids", 「他部署から3名追加で、参加15名」 after 「参加12名」, "got $700 from a grant so we're at $2,200" after
"$1,500 saved".

The arithmetic says what the words may not: the old amount and the change come to the new amount, so the
sentence sets that old amount anew, even said as an addition ("追加", "joined") and with no word of change.
"""

from __future__ import annotations

import functools
import itertools
import re

from ._features import PART
from ._values import Value, located, magnitude, normalize, values_of

# kinds of value that are amounts one can add to
_AMOUNTS = frozenset({"count", "number", "money", "duration", "measure", "percent"})
# two values written as one ("3泊4日", "3〜4件", "8:30", "6/11", "10 to 12") or listed side by side ("5 chapters
# and 2 appendices", 「大人2人と子ども3人」) are no change and its total
_ONE_VALUE = re.compile(r"[\s〜~\-\u2013\u2014/:・]*(?:to|and|plus|から|と|&)?\s*", re.IGNORECASE)
# a count of "us" or "them" counts whatever the old amount counted ("so it's only two of us")
_ANY_UNIT = frozenset({"", "us", "them"})


@functools.lru_cache(maxsize=256)
def _spans(text: str) -> tuple[tuple[Value, int, int, float], ...]:
    """The amounts in `text` (normalised) with where they are and how much they are (a sentence is read once for
    all the stored statements it is set against)."""
    out = []
    for v, start, end in located(text):
        amount = magnitude(v) if v.kind in _AMOUNTS else None
        if amount:
            out.append((v, start, end, amount))
    return tuple(out)


def _of_kind(value: Value, old: Value) -> bool:
    return value.kind == old.kind or {value.kind, old.kind} <= {"count", "number"}


def moved_total(text: str, old: str) -> Value | None:
    """The amount of `old` that `text` states a change to and the total it comes to (the old amount, plus or
    minus one of the sentence's amounts, is another of them), if any. A part ("うち2名が採点係") is no change."""
    t = normalize(text)
    found = _spans(t)
    if len(found) < 2:
        return None  # a change and a total are two amounts
    parts = [m.span() for m in PART.finditer(t)]
    for o in values_of(normalize(old)):
        was = magnitude(o) if o.kind in _AMOUNTS and (o.kind != "number" or o.unit) else None
        if not was:
            continue
        for (by, by_start, by_end, step), (to, to_start, to_end, now) in itertools.permutations(found, 2):
            between = t[by_end:to_start] if by_end <= to_start else t[to_end:by_start]
            if _ONE_VALUE.fullmatch(between) or any(a < by_end and by_start < b for a, b in parts):
                continue
            if not (_of_kind(by, o) and _of_kind(to, o)) or now == was or step >= was:
                continue
            if o.kind != "duration" and to.unit not in _ANY_UNIT and o.unit and to.unit != o.unit:
                continue
            if min(abs(was + step - now), abs(was - step - now)) < 1e-6 * was:
                return o
    return None
