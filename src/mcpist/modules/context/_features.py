"""Cheap, deterministic features of a sentence: typed values, cue words and punctuation.

None of these decides anything alone: they are inputs of the learned intent and same-attribute
models (`_intent.py`), next to the sentence embedding. The value spans also give the "attribute
text" (the sentence with its values masked), whose embedding says *what* is being set.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

ValueKind = Literal["money", "date", "duration", "count", "percent", "time", "frequency", "measure", "number"]
VALUE_KINDS: tuple[ValueKind, ...] = (
    "money",
    "date",
    "duration",
    "count",
    "percent",
    "time",
    "frequency",
    "measure",
    "number",
)
NUMERIC: frozenset[ValueKind] = frozenset({"money", "duration", "count", "percent", "measure", "number"})

_I = re.IGNORECASE
_NUM = r"(?:\d[\d,.]*|[一二三四五六七八九十百千両半]+)"
_EN_NUM = (
    r"(?:\d[\d,.]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    r"|forty|fifty|a few|several|half an?)"
)
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?"
    r"|nov(?:ember)?|dec(?:ember)?"
)
_DAYS = r"mon|tues|tue|wednes|wed|thurs|thu|fri|satur|sat|sun"

# order matters: the first kind to claim a span keeps it
_VALUES: list[tuple[ValueKind, re.Pattern[str]]] = [
    ("percent", re.compile(rf"{_NUM}\s*(?:%|パーセント|割)|\b\d+\s*percent\b", _I)),
    (
        "money",
        re.compile(
            rf"[$€£¥]\s?\d[\d,.]*\s*[km]?\b|{_NUM}\s*(?:万|千|億)?\s*(?:円|ドル|ユーロ)"
            rf"|\b\d[\d,.]*\s*k?\s*(?:dollars|euros?|usd|eur|yen|bucks|cad|gbp)\b|\b(?:cad|usd|eur)\s*\d[\d,.]*k?"
            rf"|\b\d[\d,.]*k\b|(?<![\d万])\d+\s*万(?![人件字語キ本台回部個枚点名社店])|無料|有料|\bfree\b",
            _I,
        ),
    ),
    (
        "time",
        re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|(?:朝|夜|午前|午後)?\d{1,2}時(?!間)(?:半|\d+分)?", _I),
    ),
    (
        "frequency",
        re.compile(
            rf"毎日|毎週|毎月|毎朝|毎晩|隔週|隔月|週\s*{_NUM}\s*回?|月\s*{_NUM}\s*回|(?:1|一)日(?:あたり|に)?(?=\s*\d)|年\s*{_NUM}\s*回"
            rf"|\bevery (?:other )?(?:day|week|month|morning|evening|weekday|(?:{_DAYS})(?:day)?s?)\b"
            rf"|\b{_EN_NUM}\s+(?:times|sessions|days|loaves?)\s+(?:a|per)\s+(?:day|week|month)\b"
            rf"|\b(?:daily|weekly|monthly|biweekly|fortnightly)\b|\b(?:a|per) (?:day|week|month)\b",
            _I,
        ),
    ),
    (
        "date",
        re.compile(
            rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
            rf"|\b(?:end|middle|mid|beginning|start)[- ]of[- ](?:{_MONTHS}|q[1-4]|the (?:month|year|quarter))\b"
            rf"|\bmid-(?:{_MONTHS})\b|\b(?:early|late)\s+(?:{_MONTHS})\b|\bq[1-4]\b"
            rf"|\b(?:next|this|last)\s+(?:week|month|year|(?:{_DAYS})(?:day)?)\b|\b(?:{_DAYS})days?\b|\bthanksgiving\b"
            rf"|\b(?:tomorrow|tonight|today)\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}\b"
            rf"|{_NUM}\s*月\s*{_NUM}\s*日|{_NUM}\s*月(?:末|中|上旬|中旬|下旬|頭)?|(?<![\d泊])\d{{1,2}}\s*日(?=\s*(?:まで|に|から|締|〆|の|\())"
            rf"|[月火水木金土日]曜日?|(?:再)?来週|今週|来月|今月|月末|年内|年末|年明け|来年|今年|週末|明日|今日",
            _I,
        ),
    ),
    (
        "duration",
        re.compile(
            rf"{_NUM}\s*(?:分間?|時間|日間|日分|日|泊|週間|か月|ヶ月|カ月|ケ月|年間|秒)|半年|半日"
            rf"|\b{_EN_NUM}[- ]?(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|seconds?|secs?|ms)\b",
            _I,
        ),
    ),
    (
        "measure",
        re.compile(
            rf"{_NUM}\s*(?:cm|mm|km|kg|gb|tb|mb|m2|平米|キロ|坪|インチ|℃)|\b\d+\s*(?:cm|km|kg|gb|tb|mb|c|miles?|feet|ft)\b",
            _I,
        ),
    ),
    (
        "count",
        re.compile(
            rf"{_NUM}\s*(?:人|名|件|個|本|枚|台|点|問|語|文字|字|ページ|行|章|項目|回|部屋|席|社|店舗|種類|冊|つ|案|カ所|か所|箇所|コマ|枠|問)"
            rf"|\b{_EN_NUM}\s+(?:[a-z][a-z-]*\s+)?(?:people|persons|users|seats|guests|attendees|participants|runners|pages|words"
            rf"|slides|items|books|loaves|sessions|requests|messages|services|packages|jobs|steps|sections|chapters|bedrooms"
            rf"|rooms|engineers|volunteers|customers|accounts|stores|questions|examples|options|ideas|lines|points|bullets"
            rf"|of us|admins|employees|members|friends|kids|students|episodes|books?|tickets|licen[cs]es)\b",
            _I,
        ),
    ),
    # a bare number ("I can stretch to 650"): it sets some amount, the sentence says which
    ("number", re.compile(r"(?<![\w.])\d[\d,.]*(?![\w.]*\d)", _I)),
]

_UNITS = re.compile(
    r"(人|名|件|個|本|枚|台|点|問|語|文字|字|ページ|行|章|項目|回|部屋|席|社|店舗|種類|冊|円|ドル|日分|分|時間|日|週間|か月|ヶ月|年"
    r"|people|persons|users|seats|guests|attendees|pages|words|slides|minutes?|hours?|days?|weeks?|months?)$",
    _I,
)
_SAME_UNIT = {
    "日分": "日",
    "名": "人",
    "people": "人",
    "persons": "人",
    "guests": "人",
    "attendees": "人",
    "文字": "字",
    "pages": "ページ",
}


@dataclass(frozen=True)
class Value:
    kind: ValueKind
    text: str
    unit: str


def normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def values_of(text: str) -> tuple[Value, ...]:
    """The typed values in `text`, left to right (a span belongs to the first kind that claims it)."""
    text = normalize(text)
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Value]] = []
    for kind, pattern in _VALUES:
        for m in pattern.finditer(text):
            start, end = m.span()
            if end == start or any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            unit = _UNITS.search(m.group(0).strip())
            name = unit.group(1).lower() if unit and kind != "date" else ""
            found.append((start, Value(kind, m.group(0).strip(), _SAME_UNIT.get(name, name))))
    return tuple(v for _, v in sorted(found, key=lambda pair: pair[0]))


_PLACEHOLDER = {"ja": "\u3007\u3007", "en": "X"}


def _cue(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(patterns), _I)


_REVISION_WORDS = (
    r"やっぱり?|やっぱ|やはり|訂正(?:です)?|変更です|\bactually\b|\bscratch that\b|\bchange of plans?\b|\binstead\b"
    r"|\bafter all\b|\bon second thought\b|\bcorrection:?|\bon reflection\b|\bafter thinking about it\b"
)
REVISION = _cue(
    _REVISION_WORDS,
    r"訂正|ではなく|じゃなく|じゃなくて|でなく|の代わりに|をやめて|はやめて|撤回|間違い|方針転換|さっきの|先ほどの",
    r"\bi meant\b|\brather than\b|\bforget (?:what|about)\b|\bturns out\b|\bupdate:|\bwrong\b|\bno,",
)
# a change of value without a revision word: 「延ばす」「増えた」, "bump", "grew", or a relaxed condition that
# revises a stricter one (「有料でも月千円までなら大丈夫」, "books are okay too")
CHANGE = _cue(
    r"変更|変え|変わ|延ば|伸ば|延長|前倒|短縮|増や|減ら|増え|減っ|減り|上げ|下げ|ずら|移す|移し|切り替え|早め|遅らせ|繰り",
    r"になりました|になった|ことになりました|ことにした|ことにしました|まで出せ|までなら|だけでいい",
    r"でも(?:大丈夫|構いません|構わない|かまわない|いい|良い|OK|可)|なら(?:大丈夫|構いません|構わない|OK|いい|良い|可)",
    r"\bmake (?:it|that)\b|\bchang(?:e|ed|ing)\b|\bswitch(?:ing|ed)?\b|\bmov(?:e|es|ed|ing)\b|\bbump(?:ed)?\b",
    r"\bslipped\b|\bextend(?:ed)?\b|\bpush(?:ed)?\b|\bnow\b|\brevise[ds]?\b|\bno longer\b|\brescheduled\b",
    r"\b(?:lower|raise|drop|increase|reduce|cut|grew|grown|went up|goes up|way up|down to)\b|\bafter thinking\b",
    r"\b(?:is|are|would be|'s|'re) (?:fine|okay|ok|acceptable)\b|\bworks too\b|\bapproved\b|\bsigned off\b",
)
ACCEPT = _cue(
    r"じゃあ?それで|それでお願い|それでいこう|それで進め|それで行き|ならそれで",
    r"\bthen let'?s go with (?:that|it)\b|\blet'?s go with that\b|\bthat works,? (?:then|let)|\bgo with that\b",
)
ADDITIVE = _cue(
    r"\balso\b|\bas well\b|\badditionally\b|\bin addition\b|\btoo\b|さらに|加えて|追加で|あわせて|も追加|もお願い"
)
# an explicit addition adds, whatever else it says ("On second thought, add Osaka as well")
ADDS = _cue(r"\balso\b|\bas well\b|\badditionally\b|\bin addition\b|さらに|加えて|追加で|も追加|もお願い")
_NAMED_JA = re.compile(
    r"([^\s、。,]{1,20}?)(?:ではなく|じゃなくて|じゃなく|でなく|の代わりに|をやめて|はやめて|やめて)"
)
_NAMED_EN = re.compile(
    r"(?:\binstead of|\brather than|,\s*not|\bno longer|\breplace|\bdrop)\s+([a-z0-9$€£¥#][^,.;!?]{0,40}?)"
    r"(?=\s*(?:,|\.|;|!|\?|$|\bbut\b|\blet'?s\b|\bwith\b))",
    _I,
)


def named_replacements(text: str, language: Language) -> list[str]:
    """What an explicit revision names as replaced: 「WindowsではなくMac」→ Windows, "instead of PostgreSQL"."""
    t = normalize(text)
    if language == "ja":
        t = re.compile(_REVISION_WORDS, _I).sub(" ", t)  # 「やっぱりnoteじゃなくて」: the word, not the cue
    pattern = _NAMED_JA if language == "ja" else _NAMED_EN
    return [m.group(1).strip().lower() for m in pattern.finditer(t) if len(m.group(1).strip()) >= 2]


NARROWING = _cue(
    r"具体的には|具体的に言うと|特に|とくに|中心に|重点|に絞|を優先|から始め|まずは|もっと言うと|細かく言うと",
    r"\bmore specifically\b|\bspecifically\b|\bin particular\b|\bespecially\b|\bmostly\b|\bmainly\b",
    r"\bfocus(?:ed)? on\b",
    r"\bnarrow\b|\bto be (?:more )?(?:specific|precise)\b|\bprimarily\b|\bstart with\b",
)
_FILLER_WORDS = (
    r"ok(?:ay)?|k+|cool|nice|great|perfect|awesome|thanks?(?: (?:a lot|so much))?|thank you(?: so much)?|thx|ty|cheers"
    r"|h+m+|lol|yes|yeah|yep|sure|alright|got it|understood|sounds good|interesting|hi|hello|hey(?: there)?"
    r"|good (?:morning|evening|afternoon)|let me think(?: about it)?|i see|noted|makes sense|that helps|this is great"
    r"|おけ|おk|了解(?:です|しました)?|承知(?:です|しました|いたしました)?|ありがと(?:う)?(?:ございます|ございました)?|どうも"
    r"|なるほど(?:ね)?|はい|いいね|いいです(?:ね)?|いい感じ(?:です)?|うーん|ふむ(?:ふむ)?|そっか|わかりました|分かりました"
    r"|こんにちは|こんばんは|おはよう(?:ございます)?|はじめまして|お世話になっております|よろしく(?:お願いします)?|やあ"
    r"|ちょっと考えます|助かりました|助かった|参考にします|また連絡します|どうしようかな"
)
_FILLER = re.compile(rf"^(?:(?:{_FILLER_WORDS})[\s,.!?、。\uff01\uff1f~〜ー…w]*)+$", _I)
_ASK = _cue(
    r"教えて|おすすめ|オススメ|アドバイス|提案して|挙げて|出して|比較して|説明して|知りたい",
    r"\b(?:tell me|explain|suggest|recommend|show me|give me|list|draft|compare|outline|walk me through)\b",
)
_QMARK = re.compile(r"[?\uff1f]")
_JA_Q_END = re.compile(
    r"(?:か|ですか|ますか|でしょうか|かな|かね|の|ない|ある|いい|る|た)[?\uff1f]\s*$|(?:ですか|ますか|でしょうか|ませんか)[。.]?\s*$"
)
_EN_Q_START = re.compile(
    r"^(?:(?:what|how|why|when|where|which|who|whom|whose)\b|(?:is|are|am|was|were|can|could|should|would|will|do|does"
    r"|did|must|may|might|shall|have|has)\s+(?:i|we|you|it|they|he|she|this|that|these|those|there|the|my|our|your|a|an"
    r"|any|anyone|someone)\b|any (?:ideas|tips|suggestions|thoughts)\b)",
    _I,
)
_REQUEST_Q = _cue(
    r"(?:もらえ|くれ|いただけ|頂け)(?:ます|ません)?か|てくれる[?\uff1f]|できますか|できる[?\uff1f]",
    r"^(?:could|can|would) you\b",
)
_IMPERATIVE = _cue(
    r"てください|て下さい|でください|でお願い|にして|にしといて|ように|こと[。!\uff01]?\s*$|して[。!\uff01]?\s*$|で[。!\uff01]?\s*$",
    r"^(?:please\s+)?(?:use|keep|make|limit|include|avoid|add|send|post|focus|change|move|switch|lower|drop|put|cap|go|let'?s)\b",
)
_WISH = _cue(
    r"たい|ほしい|欲しい|したく|つもり|予定|考えて(?:い|おり|ます)|検討",
    r"\b(?:want|wanna|would like|'d like|need|needs|hoping|hope|looking to|looking for|trying to|plan(?:ning)? to)\b",
    r"\b(?:goal|aim)\b",
)
_GOAL_NOUN = _cue(
    r"手伝|相談|困って|悩んで|アイデア|企画|計画|仕組み|方法|やりたいこと|目標",
    r"\bhelp\b|\bgoal\b|\bplan\b|\bproject\b|\bideas?\b|\bthe task\b|\bsystem\b|\bprocess\b|\bbrainstorm\b",
)
_NEGATION = _cue(
    r"ない|禁止|避け|不可|NG|やめ|なし|抜き|以外",
    r"\b(?:no|not|never|without|avoid|don'?t|can'?t|cannot|nothing|none)\b",
)
_LIMIT = _cue(
    r"以内|以下|未満|以上|まで|上限|最大|最低|程度|くらい|ぐらい|前後|だけ|のみ|しか|限",
    r"\b(?:under|below|at most|at least|max(?:imum)?|min(?:imum)?|up to|no more than|within|only|tops)\b",
    r"\b(?:cap(?:ped)?|limit)\b",
)
_MUST = _cue(r"必須|必ず|絶対|必要|べき|こと[。]?$", r"\b(?:must|has to|have to|need to|needs to|required?|should)\b")

FEATURES: tuple[str, ...] = (
    "qmark",
    "ja_question_end",
    "en_question_start",
    "request_question",
    "ask",
    "imperative",
    "wish",
    "goal_noun",
    "negation",
    "limit",
    "must",
    "revision",
    "change",
    "acceptance",
    "additive",
    "narrowing",
    "filler",
    *(f"value_{kind}" for kind in VALUE_KINDS),
    "length",
    "japanese",
)

Language = Literal["ja", "en"]
Vector = NDArray[np.float32]


def _has(pattern: re.Pattern[str], text: str) -> float:
    return 1.0 if pattern.search(text) else 0.0


def is_filler(text: str) -> bool:
    """Greetings, thanks and acknowledgements with nothing else in them (short)."""
    text = normalize(text)
    return bool(_FILLER.match(text))


def is_interrogative(text: str) -> bool:
    """A question by its form: a question mark, a Japanese question ending, or an English question opening."""
    text = normalize(text)
    return bool(_QMARK.search(text) or _JA_Q_END.search(text) or (_EN_Q_START.search(text) and not text.endswith(".")))


def cue(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(normalize(text))
    return match.group(0).strip() if match else None


def features(text: str, language: Language) -> Vector:
    """The cheap features of one sentence or message, in `FEATURES` order."""
    t = normalize(text)
    kinds = {v.kind for v in values_of(t)}
    row = [
        _has(_QMARK, t),
        _has(_JA_Q_END, t),
        1.0 if _EN_Q_START.search(t) and language == "en" else 0.0,
        _has(_REQUEST_Q, t),
        _has(_ASK, t),
        _has(_IMPERATIVE, t),
        _has(_WISH, t),
        _has(_GOAL_NOUN, t),
        _has(_NEGATION, t),
        _has(_LIMIT, t),
        _has(_MUST, t),
        _has(REVISION, t),
        _has(CHANGE, t),
        _has(ACCEPT, t),
        _has(ADDITIVE, t),
        _has(NARROWING, t),
        1.0 if is_filler(t) else 0.0,
        *(1.0 if kind in kinds else 0.0 for kind in VALUE_KINDS),
        math.log1p(len(t)) / 5.0,
        1.0 if language == "ja" else 0.0,
    ]
    return np.asarray(row, dtype=np.float32)


_STRIP = [
    re.compile(_REVISION_WORDS, _I),
    ACCEPT,
    re.compile(r"^(?:ok|okay|oh|well|so|hmm|sorry|あ|えっと|ごめん|すみません)[,、\s]+", _I),
]


_NUMERAL = re.compile(
    r"\d[\d,.]*(?:\s*[km]\b)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|a few|several|half an?)\b|[一二三四五六七八九十百千両半]+",
    _I,
)


def attribute_text(text: str, language: Language) -> str:
    """What the sentence sets, without the value and the revision words: "The budget is $3k" → "The budget is $X".

    Only the number goes when the value has one ("25 guests" → "X guests": the unit says what is counted).
    """
    t = normalize(text)
    mark = _PLACEHOLDER[language]
    out, pos = [], 0
    for v in values_of(t):
        start = t.find(v.text, pos)
        if start < 0:
            continue
        masked = mark if v.kind in ("date", "time") else _NUMERAL.sub(mark, v.text)
        out += [t[pos:start], masked if masked != v.text else mark]
        pos = start + len(v.text)
    out.append(t[pos:])
    result = "".join(out)
    for pattern in _STRIP:
        result = pattern.sub(" ", result)
    result = " ".join(result.split()).strip(" ,、。.")
    return result or t


_JA_TOPIC = re.compile(r"(?:^|[、,\s])([^、,。\s]{1,10}?)は")
_JA_LEAD = re.compile(r"^([^、,。\s]{1,8})(?:、|,|:)")
_EN_TOPIC = re.compile(
    r"^(?:(?:the|our|my|a|an|your|their)\s+)?([a-z][a-z -]{0,30}?)\s*(?::|\s(?:is|are|was|will be|should be|must be"
    r"|has to be|needs to be|can't go|cannot go|can be|stays|goes|moves|range)\b)",
    _I,
)
_EN_SET = re.compile(
    r"\b(?:change|set|move|switch|bump|raise|lower|increase|reduce|cut|extend|push)\s+(?:the\s+|our\s+|my\s+)?"
    r"([a-z][a-z -]{1,30}?)\s+(?:to|up to|down to)\b",
    _I,
)
_KANJI = re.compile(r"[\u3400-\u9fff]")
_NOT_TOPIC = {"it", "we", "i", "they", "this", "that", "there", "he", "she", "you", "what", "which", "how", "so"}


def topic_of(text: str, language: Language) -> str | None:
    """The noun a statement sets something about: 「予算は…」→ 予算, "The deadline is …" → deadline."""
    t = re.compile(_REVISION_WORDS, _I).sub(" ", normalize(text)).strip(" ,、")
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
