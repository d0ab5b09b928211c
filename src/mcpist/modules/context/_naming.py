"""What a sentence replaces by naming it or lifts, when its value cannot say: 「WindowsではなくMac」,
"instead of PostgreSQL", "BookStack vetoed by security", 「民泊は却下」, "format doesn't matter".

The plan (`_plan._Turn.replacement`) narrows its candidates to the stored statements that name what is
replaced or turned down; a lifted condition sets no value, so it is matched by the model and a shared word.
"""

from __future__ import annotations

import re

from ._features import _I, _REVISION_WORDS, _cue, normalize
from ._text import Language

_NAMED_JA = re.compile(
    r"([^\s、。,]{1,20}?)(?:ではなく|じゃなくて|じゃなく|でなく|の代わりに|をやめて|はやめて|やめて)"
)
_NAMED_EN = re.compile(
    r"(?:\binstead of|\brather than|,\s*not|\bno longer|\breplace|\bdrop)\s+([a-z0-9$€£¥#][^,.;!?]{0,40}?)"
    r"(?=\s*(?:,|\.|;|!|\?|$|\bbut\b|\blet'?s\b|\bwith\b))",
    _I,
)


# a named thing turned down: "BookStack vetoed by security", "Notion's out", "forget the per-night cap",
# 「Zoomはなしで」「民泊は却下」
_NAME_EN = r"((?:[a-z0-9$€£¥#][\w$€£¥#.\-]*\s+){0,2}[a-z0-9$€£¥#][\w$€£¥#.\-]*)"
_REJECTED_EN = re.compile(
    _NAME_EN + r"(?:'s|'re|\s+(?:is|are|was|were))\s+(?:out|off the table|a no-go|not an option)\b(?!\s+of\b)"
    r"|"
    + _NAME_EN
    + r"\s+(?:(?:is|are|was|were|got|has been|have been)\s+)?(?:vetoed|rejected|scrapped|cancel+ed|ruled out)\b"
    r"|\b(?:forget|scrap|ditch)\s+(?:about\s+)?(?:the\s+)?([a-z0-9][\w$€£¥#.\-]*(?:\s+[\w$€£¥#.\-]+)?)"
    r"(?=\s*(?:,|\.|;|!|\?|$|\bthing\b|\bidea\b|\bplan\b))",
    _I,
)
_NOT_A_NAME = frozenset(
    {"we", "i", "it", "they", "he", "she", "you", "that", "this", "everything", "all", "time", "so"}
)
_NOT_NAMING = frozenset(
    {"thing", "idea", "plan", "option", "stuff", "is", "are", "was", "were", "got", "has", "have", "been"}
)
_REJECTED_JA = re.compile(
    r"([^\s、。,!?\uff01\uff1f]{2,20}?)(?:は|も)(?:なし|無し|ナシ|やめ|止め|却下|中止|ボツ|NG|使えな|ダメ|だめ|不可に)"
)


def named_replacements(text: str, language: Language) -> list[str]:
    """What an explicit revision names as replaced: 「WindowsではなくMac」→ Windows, "instead of PostgreSQL"."""
    t = normalize(text)
    if language == "ja":
        t = re.compile(_REVISION_WORDS, _I).sub(" ", t)  # 「やっぱりnoteじゃなくて」: the word, not the cue
    pattern = _NAMED_JA if language == "ja" else _NAMED_EN
    return [m.group(1).strip().lower() for m in pattern.finditer(t) if len(m.group(1).strip()) >= 2]


def rejected_names(text: str, language: Language) -> list[str]:
    """What a sentence turns down by name: "BookStack vetoed by security" → bookstack, 「民泊は却下」→ 民泊."""
    t = normalize(text)
    if language == "ja":
        return [m.group(1).lower() for m in _REJECTED_JA.finditer(t)]
    out: list[str] = []
    for m in _REJECTED_EN.finditer(t):
        words = next((g for g in m.groups() if g), "").lower().split()
        while words and words[-1] in _NOT_NAMING:
            words.pop()
        # the words just before the verb name it ("my boss says Notion's out" turns down Notion)
        if words and words[-1] not in _NOT_A_NAME and len(words[-1]) >= 2:
            out += [words[-1]] + ([" ".join(words[-2:])] if len(words) > 1 else [])
    return out


# a condition lifted: "format doesn't matter", "no cap on it anymore", 「お金のことは気にしなくていい」,
# 「スライド枚数の制限はなくて大丈夫」 (it replaces the condition it lifts, and sets no value)
REMOVAL = _cue(
    r"気にしなくて(?:いい|良い|大丈夫|OK)|気にしないで|(?:制限|上限|縛り|指定|条件)(?:は|も)?(?:なし|無し|なくて|ない|いらな|不要)"
    r"|こだわらな|問わな|どちらでも(?:いい|良い|大丈夫|構)|どっちでも(?:いい|良い|OK)|なんでも(?:いい|OK)",
    r"\b(?:doesn'?t|does not|don'?t|no longer) (?:matter|need|apply)\b|\bno (?:limit|cap|restriction|maximum|max)\b"
    r"|\b(?:drop|lift|remove|forget) (?:about )?the (?:\S+ )?(?:limit|cap|restriction|requirement|rule|maximum|max)\b"
    r"|\bnot (?:a|an) (?:issue|problem|concern|constraint) any ?more\b|\bwhatever(?:'s| is) best\b",
)
