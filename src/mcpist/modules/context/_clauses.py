"""What a newer statement leaves standing of a stored one that said several things at once.

"It's a 30-minute slot and the audience is mostly mid-level engineers", then "they've cut us to 20
minutes": the slot changes, the audience does not. A statement is replaced as a whole
(`_turn._Turn.replacement`), so the clauses the newer one does not set are kept as a statement of their
own (`kept_clauses`). Which clauses it sets is decided by its values, as the goal's masking decides
(`_values.replaced_values`): the clauses holding a value of the kind (and unit) it sets, and by its words:
the clauses that share one with it. When it sets every clause, or none surely, nothing is kept apart: the
whole statement goes, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._text import Language
from ._values import Value, normalize, replaced_values, values_of

# a clause ends at a comma or semicolon, a sentence end, or before "and"/"but" that opens a new subject
# ("… slot and the audience is …"); "two adults and a cat" stays one
_SPLIT_EN = re.compile(
    r"\s*[,;:.!?]\s+|\s*;\s*"
    r"|\s+(?:and|but|while|whereas|plus)\s+(?=(?:the|our|my|we|we're|it|it's|its|they|their|there|i|i'm|he|she)\b)",
    re.IGNORECASE,
)
# 「予算は5万円で、期間は3日」: a reading comma or a sentence end (full-width marks are normalised to ASCII)
_SPLIT_JA = re.compile(r"[、。]\s*|[,;!?](?!\d)\s*")
_LEADING = re.compile(r"^(?:and|but|also|plus|so|then|oh)\b[\s,]*|^(?:あと|それと|それから|また|で)[、,]?", re.I)
MIN_WORDS = 2  # an English clause shorter than this ("like", "obviously") belongs to the one before it
MIN_CHARS = 3  # the same for a Japanese clause (「多分」)


def clauses(text: str, language: Language) -> list[str]:
    """`text` (normalised) cut into clauses; a piece too short to say anything joins the clause before it."""
    pieces = [p.strip() for p in (_SPLIT_JA if language == "ja" else _SPLIT_EN).split(text)]
    out: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if out and _too_short(piece, language):
            out[-1] = f"{out[-1]}{'、' if language == 'ja' else ', '}{piece}"
        else:
            out.append(piece)
    if len(out) > 1 and _too_short(out[0], language):
        out[1] = f"{out[0]}{'、' if language == 'ja' else ', '}{out[1]}"
        out.pop(0)
    return out


def _too_short(clause: str, language: Language) -> bool:
    if language == "en":
        return len(re.findall(r"[A-Za-z0-9£$€%]+", clause)) < MIN_WORDS
    return len(re.sub(r"[\s、。,.!?]", "", clause)) < MIN_CHARS


def kept_clauses(
    old: str,
    new: tuple[Value, ...],
    new_terms: frozenset[str],
    terms_of: Callable[[str], list[str]],
    language: Language,
    moved: Value | None = None,
) -> str | None:
    """The clauses of `old` that a statement setting the values `new` (and saying the words `new_terms`) leaves
    standing, joined as one statement; None when it sets the whole of `old` (or nothing surely). `moved`: the
    one value of `old` it sets, when that is known ("2人入って20人" moves 「18人」, not 「コーチは3人」)."""
    text = normalize(old)
    replaced = [moved] if moved is not None else replaced_values(text, new) if new else []
    if new and not replaced:
        return None
    parts = clauses(text, language)
    if len(parts) < 2:
        return None

    # a clause holding a value it replaces is set by it, and so is one that shares a word with it: "scrap the
    # evenings, just Sunday" sets both clauses of "two evenings a week, plus Sunday mornings"; with no value,
    # the words alone say which (「本島ではなく石垣島に」 sets 「行き先は沖縄本島を考えています」, not 「2泊3日」)
    # a value is found among the clause's own values, so that the "1" of 「要介護1」 is not also found in 「1時間」;
    # one the clause cuts differently (read across a boundary) is found by its text
    own = [set(values_of(part)) for part in parts]
    anywhere = set().union(*own)

    def sets(part: str, values: set[Value]) -> bool:
        held = any(v in values if v in anywhere else v.text in part for v in replaced)
        return held or bool(new_terms & set(terms_of(part)))

    set_here = [sets(part, values) for part, values in zip(parts, own, strict=True)]
    kept = [part for part, hit in zip(parts, set_here, strict=True) if not hit]
    if not any(set_here) or not kept:
        return None
    # a kept clause must say something of its own: a value, or words beyond a single one
    kept = [_LEADING.sub("", c).strip() for c in kept]
    kept = [c for c in kept if c and (values_of(c) or not _too_short(c, language))]
    if not kept:
        return None
    return ("、" if language == "ja" else ", ").join(kept)
