"""What a statement sets: its attribute text (the sentence with its values and revision words masked, whose
embedding the same-attribute model compares) and the noun that names what it sets (「予算は…」→ 予算, "rent £875" →
rent), which the replacement rules compare."""

from __future__ import annotations

import functools
import re

from ._features import ACCEPT, REVISION_WORD
from ._text import EN_STOP_WORDS, Language
from ._values import NUMERAL, located, normalize, values_of

_I = re.IGNORECASE
_PLACEHOLDER = {"ja": "\u3007\u3007", "en": "X"}

_STRIP = [
    REVISION_WORD,
    ACCEPT,
    re.compile(r"^(?:ok|okay|oh|well|so|hmm|sorry|あ|えっと|ごめん|すみません)[,、\s]+", _I),
]


def attribute_text(text: str, language: Language) -> str:
    """What the sentence sets, without the value and the revision words: "The budget is $3k" → "The budget is $X".

    Only the number goes when the value has one ("25 guests" → "X guests": the unit says what is counted).
    """
    t = normalize(text)
    mark = _PLACEHOLDER[language]
    out, pos = [], 0
    for v, start, end in located(t):
        masked = mark if v.kind in ("date", "time") else NUMERAL.sub(mark, v.text)
        out += [t[pos:start], masked if masked != v.text else mark]
        pos = end
    out.append(t[pos:])
    result = _value_clauses("".join(out), mark) if pos else "".join(out)
    for pattern in _STRIP:
        result = pattern.sub(" ", result)
    result = " ".join(result.split()).strip(" ,、。.")
    return result or t


_CLAUSE_SPLIT = re.compile(r"(?<=[,;、])\s*|\s+(?=(?:but|so|because|since)\s)")


def _value_clauses(masked: str, mark: str) -> str:
    """Of a sentence that sets a value, the clauses that hold one and the short ones that name it:
    "make that $X, I forgot I also need breakfast stuff" → "make that $X"; 「予算、週〇〇円まで」 stays whole."""
    clauses = [c for c in _CLAUSE_SPLIT.split(masked) if c and c.strip()]
    if len(clauses) < 2:
        return masked

    def short(clause: str) -> bool:
        words = clause.split()
        return len(words) <= 2 if clause.isascii() else len(clause.strip(" ,、")) <= 6

    kept = [c for c in clauses if mark in c or short(c)]
    return " ".join(kept) if kept else masked


_JA_TOPIC = re.compile(r"(?:^|[、,\s])([^、,。\s]{1,10}?)は")
# 「平日は」, and 「平日も」 (a word, not 「分も」)
_JA_NOUN_TOPIC = re.compile(
    r"(?<![\u3400-\u9fff\u30a0-\u30ff])([\u3400-\u9fff\u30a0-\u30ff]{1,8}(?=は)|[\u3400-\u9fff\u30a0-\u30ff]{2,8}(?=も))"
)
_JA_LEAD = re.compile(r"^([^、,。\s]{1,8})(?:、|,|:)")
_EN_TOPIC = re.compile(
    r"^(?:(?:the|our|my|a|an|your|their)\s+)?([a-z][a-z -]{0,30}?)\s*(?::|\s(?:is|are|was|will be|should be|must be"
    r"|has to be|needs to be|can't go|cannot go|can be|stays|goes|moves|range)\b|\s*(?:->|→|=)\s)",
    _I,
)
_EN_SET = re.compile(
    r"\b(?:change|set|move|switch|bump|raise|lower|increase|reduce|cut|extend|push)\s+(?:the\s+|our\s+|my\s+)?"
    r"([a-z][a-z -]{1,30}?)\s+(?:to|up to|down to)\b",
    _I,
)
_KANJI = re.compile(r"[\u3400-\u9fff]")
_DIGIT = re.compile(r"\d")
_NOUN_END = re.compile(r"[\u3400-\u9fff\u30a0-\u30ffA-Za-z0-9]$")
_NOT_TOPIC = {"it", "we", "i", "they", "this", "that", "there", "he", "she", "you", "what", "which", "how", "so"}


@functools.lru_cache(maxsize=4096)
def topic_of(text: str, language: Language) -> str | None:
    """The noun a statement sets something about: 「予算は…」→ 予算, "The deadline is …" → deadline."""
    t = REVISION_WORD.sub(" ", normalize(text)).strip(" ,、")
    if language == "ja":
        match = _JA_TOPIC.search(t) or _JA_LEAD.search(t)
        topic = match.group(1) if match else None
    else:
        match = _EN_SET.search(t) or _EN_TOPIC.search(t)
        topic = match.group(1).strip().lower() if match else None
        if topic and topic.endswith("s") and len(topic) > 3:
            topic = topic[:-1]
    if not topic or topic in _NOT_TOPIC or values_of(topic):
        return None
    return topic if len(topic) >= 2 or _KANJI.fullmatch(topic) else None


def _is_amount(text: str) -> bool:
    """A number or an amount (「3人」「二人」「十割」), which names no attribute; 「二次会」 and 「土曜」 do."""
    return bool(_DIGIT.search(text)) or any(v.kind != "date" for v in values_of(text))


@functools.lru_cache(maxsize=4096)
def attribute_of(text: str, language: Language) -> str | None:
    """The topic when it surely names the attribute set: a noun (not 「通えるのは」, a clause made a noun,
    nor 「相談して、」, a clause) that is not the one who acts ("Grandpa is chipping in, so $700")."""
    if language == "ja":
        # the first topic that is a noun: 「練習できるのは平日は30分」 sets 平日's time
        t = REVISION_WORD.sub(" ", normalize(text)).strip(" ,、")
        found = sorted((m.start(1), m.group(1)) for p in (_JA_TOPIC, _JA_NOUN_TOPIC, _JA_LEAD) for m in p.finditer(t))
        # a time of week or year may be what is set (「週末は2時間」 beside 「平日は30分」), a number is not
        nouns = [x for _, x in found if _NOUN_END.search(x) and not _is_amount(x) and x.lower() not in _NOT_TOPIC]
        return nouns[0] if nouns else None
    topic = topic_of(text, language)
    if topic is None:
        return _named_before_value(text)
    t = normalize(text).lower()
    at = t.find(topic)
    after = t[at + len(topic) :] if at >= 0 else ""
    return None if re.match(r"\s*(?:is|are|was|were)\s+[a-z]+ing\b", after) else topic


# a terse statement that opens with what it sets, then its value: "rent £875", "term 2 years", "food budget
# around £50 a week", "commute's 30 miles a day", "Due May 2."
_EN_NAMED = re.compile(r"^(?:(?:the|our|my|their|his|her)\s+)?([a-z][a-z'-]*(?:\s+[a-z][a-z'-]*)?)\s*$", _I)
_HEDGES = re.compile(
    r"\s+(?:(?:of|at|is|are)\s+)?(?:about|around|approx\.?|approximately|roughly|circa|nearly|almost|~)?\s*$", _I
)
# a participle or an adverb ("joined 3", "honestly 2 hours"), not a noun
_NOT_NOUN = re.compile(r"(?:[^e]ed|ing|ly)$")
# words that lead a value without naming what is set: "max 3 hours", "always 2 on the floor", "twice a week", and
# the one who acts, misspelt ("hes 9", "im 5ft 6")
_LEADS = {"max", "min", "maximum", "minimum", "total", "under", "over", "least", "most", "than", "plus", "like"}
_LEADS |= {"always", "never", "often", "sometimes", "already", "another", "once", "twice"}
_LEADS |= {"im", "hes", "shes", "theres", "ive", "thats"}


def _named_before_value(text: str) -> str | None:
    """What a terse English statement that names no topic otherwise sets, named right before its first value."""
    t = normalize(text).strip()
    found = located(t)
    if not found or not NUMERAL.search(found[0][0].text):
        return None  # "Attendance last year was tiny": no amount
    match = _EN_NAMED.match(_HEDGES.sub("", " " + t[: found[0][1]]).strip())
    if match is None:
        return None
    words = [w.removesuffix("'s") for w in match.group(1).lower().split()]
    if any(
        w in EN_STOP_WORDS or w in _NOT_TOPIC or w in _LEADS or "'" in w or w.endswith("-") or _NOT_NOUN.search(w)
        for w in words
    ):
        return None
    if len(words) > 1 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        return None  # "legal says 3 years", "grandma wants 2": one who acts and a verb
    topic = " ".join(words)
    return topic[:-1] if topic.endswith("s") and len(topic) > 3 else topic
