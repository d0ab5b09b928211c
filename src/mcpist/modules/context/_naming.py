"""What a sentence replaces by naming it or lifts, when its value cannot say: 「WindowsではなくMac」,
"instead of PostgreSQL", "BookStack vetoed by security", 「民泊は却下」, "format doesn't matter".

The plan (`_turn._Turn.replacement`) narrows its candidates to the stored statements that name what is
replaced or turned down; a lifted condition sets no value, so it is matched by the model and a shared word.
"""

from __future__ import annotations

import re

from ._features import REVISION_WORD, REVISION_WORDS, cues, normalize
from ._text import Language

_I = re.IGNORECASE

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
        t = REVISION_WORD.sub(" ", t)  # 「やっぱりnoteじゃなくて」: the word, not the cues
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
REMOVAL = cues(
    r"気にしなくて(?:いい|良い|大丈夫|OK)|気にしないで|(?:制限|上限|縛り|指定|条件)(?:は|も)?(?:なし|無し|なくて|ない|いらな|不要)"
    r"|こだわらな|問わな|どちらでも(?:いい|良い|大丈夫|構)|どっちでも(?:いい|良い|OK)|なんでも(?:いい|OK)",
    r"\b(?:doesn'?t|does not|don'?t|no longer) (?:matter|need|apply)\b"
    r"|\bno (?:\w+ )?(?:limit|cap|restriction|maximum|max)\b"
    r"|\b(?:drop|lift|remove|forget) (?:about )?the (?:\S+ )?(?:limit|cap|restriction|requirement|rule|maximum|max)\b"
    r"|\bnot (?:a|an) (?:issue|problem|concern|constraint) any ?more\b|\bwhatever(?:'s| is) best\b",
)


# a name: a product, tool, service or place, as people write them ("Shopify", "Google Sheets", "Excel 365",
# "iPhone", "Excel2016", 「BASE」「Microsoft 365」); a capitalised word opening a sentence counts only with another
# after it or a version number ("Google Sheets now", "Excel 365"), as any word may open a sentence
_NAME_WORD = r"(?:[A-Z][\w.+#-]*|[a-z]+[A-Z][\w.+#-]*|[A-Za-z]+\d[\w.]*)"
_NAMES_EN = re.compile(rf"(?<![\w'\u2019]){_NAME_WORD}(?:\s+(?:{_NAME_WORD}|\d+(?:\.\d+)?\b))*")
_NAMES_JA = re.compile(r"[A-Za-z][A-Za-z0-9.+#-]*(?:\s?[A-Za-z0-9][A-Za-z0-9.+#-]*)*")
_NOT_NAMES = frozenset(
    [
        "i",
        "i'm",
        "i'd",
        "i've",
        "i'll",
        "ok",
        "okay",
        "pls",
        "lol",
        "tbh",
        "btw",
        "asap",
        "fyi",
        "am",
        "pm",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
# a word that says the user moves to something else: "we're switching to Flutter", "let's go with Shopify",
# "Google Sheets now, IT migrated us", 「Shopifyにするわ」「GarageBandに乗り換え」「Microsoft 365に更新済み」
SWITCH = cues(
    r"乗り換え|に(?:変え|替え|変更|切り替え|切替え|移行|更新|決め|決定)|(?:に|で)(?:する|します|しよう|しよ|いく|行く)(?![たてっ])",
    r"\bswitch(?:ing|ed|es)?\b|\bgo(?:ing)? with\b|\bwent with\b|\bgoing for\b|\bmov(?:e|ed|ing) (?:over )?to\b"
    r"|\bmigrat\w*|\bchang(?:e|ed|ing) (?:over )?to\b|\breplac\w*|\binstead\b|\bdecided on\b|\bopted for\b"
    r"|(?<!\bfor )\bnow\b",
)


def names_in(text: str, language: Language) -> frozenset[str]:
    """The names a sentence mentions (see `_NAMES_EN`), lower-cased; in Japanese, the Latin-script ones."""
    t = normalize(text)
    if language == "ja":
        found = [m.group(0).strip().rstrip(".") for m in _NAMES_JA.finditer(t)]
    else:
        found = [name for m in _NAMES_EN.finditer(t) if (name := _name(m, t))]
    return frozenset(n.lower() for n in found if n.lower() not in _NOT_NAMES and len(n) >= 2)


def _name(m: re.Match[str], text: str) -> str:
    words = m.group(0).split()
    opens = m.start() == 0 or text[: m.start()].rstrip()[-1:] in ".!?:"
    if words[0].lower() in _NOT_NAMES:
        words, opens = words[1:], False
    # a capitalised word alone at the start of a sentence may be any word ("Budget is tight")
    if not words or (opens and len(words) == 1 and words[0][1:].islower()):
        return ""
    return " ".join(words).rstrip(".")


def switched_to(text: str, language: Language) -> frozenset[str]:
    """The names a sentence says the user moves to ("let's go with Shopify" → shopify), or none without such a word."""
    if SWITCH.search(normalize(text)) is None:
        return frozenset()
    return names_in(text, language)


_CUE_ONLY = re.compile(rf"(?:{REVISION_WORDS}|\bupdate\b|変更|すみません|sorry|[\s、。,.:;!?\uff01\uff1f-])+", _I)


def only_a_cue(text: str) -> bool:
    """A sentence that is nothing but a word of change (「訂正。」, "Correction:", "Update -"): what changes
    follows it, so it replaces nothing itself."""
    return _CUE_ONLY.fullmatch(normalize(text)) is not None
