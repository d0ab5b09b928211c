"""Typed values in a sentence (money, dates, durations, counts ...), their units and their masking.

A value's kind and unit say what sort of thing a sentence sets ("$3k" and "budget's 5k now" are
both amounts); masking them gives the "attribute text" whose embedding says *what* is set.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

ValueKind = Literal["money", "date", "duration", "count", "percent", "time", "frequency", "measure", "number", "age"]
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
NUMERIC: frozenset[ValueKind] = frozenset({"money", "duration", "count", "percent", "measure", "number", "age"})

_I = re.IGNORECASE
_NUM = r"(?:\d(?:[\d,.]*\d)?|[一二三四五六七八九十百千両半]+)"
_EN_NUM = (
    r"(?:\d(?:[\d,.]*\d)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    r"|forty|fifty|a few|several|half an?)"
)
# a spelled-out amount before a currency word ("two grand", not "a grand day out")
_WORD_NUM = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty"
    r"|seventy|eighty|ninety|a hundred|a thousand|several|a few)"
)
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?"
    r"|nov(?:ember)?|dec(?:ember)?"
)
_DAYS = r"mon|tues|tue|wednes|wed|thurs|thu|fri|satur|sat|sun"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"  # a day of the month: "3", "21st"

# order matters: the first kind to claim a span keeps it
_VALUES: list[tuple[ValueKind, re.Pattern[str]]] = [
    ("percent", re.compile(rf"{_NUM}\s*(?:%|パーセント|割)|\b\d+\s*percent\b", _I)),
    (
        "money",
        re.compile(
            rf"[$€£¥]\s?\d(?:[\d,.]*\d)?\s*[km]?\b|{_NUM}\s*(?:万|千|億)?\s*(?:円|ドル|ユーロ)"
            rf"|\b\d(?:[\d,.]*\d)?\s*k?\s*(?:dollars|euros?|usd|eur|yen|bucks|cad|gbp)\b|\b(?:cad|usd|eur)\s*\d(?:[\d,.]*\d)?k?"
            rf"|\b\d(?:[\d,.]*\d)?k\b|(?<![\d万])\d+\s*万(?![人件字語キ本台回部個枚点名社店])|無料|有料|\bfree\b"
            # an amount in words or with a spoken currency: "four thousand pounds", "two grand", "400 quid"
            rf"|\b(?:\d(?:[\d,.]*\d)?|{_WORD_NUM})(?:\s+(?:hundred|thousand|million))?\s*(?:pounds(?!\s+of\b)|quid)\b"
            rf"|\b(?:\d(?:[\d,.]*\d)?|{_WORD_NUM})(?:\s+(?:hundred|thousand))?\s+grand\b"
            rf"|\b{_WORD_NUM}(?:\s+(?:hundred|thousand|million))?\s+(?:dollars|euros?|bucks|yen)\b"
            rf"|\ba couple (?:of )?(?:hundred|thousand|grand)(?:\s+(?:pounds|quid|dollars|bucks|euros?))?",
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
            # a span of days is one date: "25-26 October", "3 to 5 May", "May 3-5"
            rf"\b{_DAY}\s*(?:-|\u2013|\u2014|to)\s*{_DAY}\s+(?:of\s+)?(?:{_MONTHS})\b"
            rf"|\b(?:{_MONTHS})\.?\s+{_DAY}\s*(?:-|\u2013|\u2014)\s*{_DAY}\b"
            rf"|\b(?:{_MONTHS})\.?\s+{_DAY}\b|\b{_DAY}\s+(?:of\s+)?(?:{_MONTHS})\b"
            rf"|\b(?:end|middle|mid|beginning|start)[- ]of[- ](?:{_MONTHS}|q[1-4]|the (?:month|year|quarter))\b"
            rf"|\bmid-(?:{_MONTHS})\b|\b(?:early|late)\s+(?:{_MONTHS})\b|\bq[1-4]\b"
            rf"|\b(?:next|this|last)\s+(?:week|month|year|(?:{_DAYS})(?:day)?)\b|\b(?:{_DAYS})days?\b|\bthanksgiving\b"
            # "moving on the 30th", "pushed it to the 2nd" (not "on the 4th floor"); "Wed 6-9pm"
            rf"|\b(?:on|by|until|till|to|from|before|after)\s+the\s+\d{{1,2}}(?:st|nd|rd|th)\b"
            rf"(?![-\s]+(?:floor|grade|place|time|anniversary|birthday|edition|century|row|level|round)\b)"
            rf"|\b(?-i:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b"
            rf"|\b(?:the\s+)?day\s+after\s+tomorrow\b|\b(?:the\s+)?week\s+after\s+next\b|\b(?:this|next)\s+weekend\b"
            rf"|\b(?:tomorrow|tonight|today)\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}\b"
            rf"|{_NUM}\s*月\s*{_NUM}\s*日|{_NUM}\s*月(?:末|中|上旬|中旬|下旬|頭)?|(?<![\d泊])\d{{1,2}}\s*日(?=\s*(?:まで|に|から|締|〆|の|\())"
            rf"|[月火水木金土日]曜日?|(?:再)?来週|今週|来月|今月|月末|年内|年末|年明け|来年|今年|週末|明日|今日"
            rf"|明後日|明々後日|明明後日|あさって|しあさって|今夜|今晩|明晩|本日",
            _I,
        ),
    ),
    # an age: 「母は82歳」, "she's 7 years old", "a 12-year-old" (before durations, which would claim "7 years")
    ("age", re.compile(rf"{_NUM}\s*(?:歳|才)|\b\d{{1,3}}[- ](?:years?|yrs?)[- ]old\b", _I)),
    (
        "duration",
        re.compile(
            # 「十分や」「十分です」 is "enough", not ten minutes (「十分で終わる」 stays a duration)
            rf"(?<![\d一二三四五六七八九百千])(?!十分(?:や|だ|です|な|に|じゃ|すぎ|[。!、]|$))"
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
            # 「一人暮らし」「一人っ子」「二人旅」 say how someone lives or travels, not how many take part
            rf"{_NUM}\s*(?:人(?!暮らし|っ子|旅|ぼっち)|名|件|個|本|枚|台|点|問|語|文字|字|ページ|行|章|項目|回|部屋|席|社|店舗|種類|冊|つ|案|カ所|か所|箇所|コマ|枠|問)"
            rf"|\b{_EN_NUM}\s+(?:[a-z][a-z-]*\s+)?(?:people|persons|users|seats|guests|attendees|participants|runners|pages|words"
            rf"|slides|items|books|loaves|sessions|requests|messages|services|packages|jobs|steps|sections|chapters|bedrooms"
            rf"|rooms|engineers|volunteers|customers|accounts|stores|questions|examples|options|ideas|lines|points|bullets"
            rf"|of us|admins|employees|members|friends|kids|students|episodes|books?|tickets|licen[cs]es)\b"
            # a spelled-out number before a plural noun counts it: "twelve hires", "two layers"
            rf"|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty)"
            rf"\s+(?:[a-z]+\s+)?[a-z]{{2,}}s\b",
            _I,
        ),
    ),
    # a bare number ("I can stretch to 650"): it sets some amount, the sentence says which
    (
        "number",
        re.compile(
            r"(?<![A-Za-z0-9_.])\d(?:[\d,.]*\d)?(?![\w.]*\d)"
            # "make it nine": a spelled-out number that counts nothing named
            r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty)"
            r"(?:\s+(?:hundred|thousand|million)\b)?\b",
            _I,
        ),
    ),
]

_UNITS = re.compile(
    r"(人|名|件|個|本|枚|台|点|問|語|文字|字|ページ|行|章|項目|回|部屋|席|社|店舗|種類|冊|つ|案|カ所|か所|箇所|コマ|枠"
    r"|円|ドル|日分|分|時間|日|週間|か月|ヶ月|年"
    r"|people|persons?|users?|seats?|guests?|attendees?|pages?|words?|slides?|minutes?|mins?|hours?|hrs?|days?|weeks?"
    r"|months?|years?|ヶ月|カ月|ケ月|週|泊|万円|千円)$",
    _I,
)
_SAME_UNIT = {
    "か所": "カ所",
    "箇所": "カ所",
    "日分": "日",
    "名": "人",
    "people": "人",
    "person": "人",
    "guest": "人",
    "attendee": "人",
    "文字": "字",
    "page": "ページ",
    "min": "minute",
    "hr": "hour",
    "ヶ月": "か月",
    "カ月": "か月",
    "ケ月": "か月",
    "万円": "円",
    "千円": "円",
}


_PER_ONE = re.compile(r"^(?:1|一)\s*(?:人|名|台|部屋|個|回)$")
_PER_AMOUNT = re.compile(r"^\s*(?:あたり|当たり|につき)?\s*(?:\d|[一二三四五六七八九十百千半])")
_EN_COUNTED = re.compile(r"^\s*(?:more |fewer |extra |new |old |total |in total )?([a-z]{3,})\b", _I)
_JA_COUNTED = re.compile(r"^\s*([\u3400-\u9fff\u30a0-\u30ff]{1,2})")
_NOT_COUNTED = frozenset(
    {
        *("and", "the", "for", "per", "with", "from", "that", "this", "then", "now", "but", "not", "max", "min"),
        *("tops", "total", "incl", "each", "more", "less", "than", "please", "or", "if", "is", "are", "was"),
        *("were", "so", "ok", "okay", "fine", "instead"),
        # a preposition says what comes next, not what is counted: "closer to 400 after the car"
        *("after", "before", "over", "under", "about", "around", "into", "until", "till", "since", "off", "out"),
        # a multiplier is no unit: "three thousand" is a bare amount, as 3000 is
        *("hundred", "thousand", "million"),
        # a verb says what they do, not what they are: "62 have registered", "3 more joined", "about 60 going"
        *("have", "has", "had", "will", "can", "could", "would", "should", "may", "might", "must", "did", "get"),
        *("got", "went", "came", "left", "quit", "said"),
    }
)
# ... and so does a word in -ed or in -ing that is no plural ("joined", "dropped", "going"; not "bed", "meetings")
_VERB_FORM = re.compile(r"^[a-z]{2,}(?:[^e]ed|ing)$", _I)


def _counted(after: str) -> str:
    """What a bare number counts, by the word after it: "40 staff" → staff, 「35台」 → 台."""
    m = _EN_COUNTED.match(after)
    if m and m.group(1).lower() not in _NOT_COUNTED and not _VERB_FORM.match(m.group(1)):
        return _unit_name(m.group(1))
    m = _JA_COUNTED.match(after)
    return _unit_name(m.group(1).lstrip("万千億")) if m and m.group(1).lstrip("万千億") else ""


def _unit_name(text: str) -> str:
    name = text.lower()
    if name.isascii() and len(name) > 2 and name.endswith("s"):
        name = name[:-1]  # "hours" and "an hour", "3 pages" and "1 page" count the same thing
    return _SAME_UNIT.get(name, name)


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
            if kind == "count" and _PER_ONE.match(m.group(0)) and _PER_AMOUNT.match(text[end:]):
                continue  # 「1人3万」「1人あたり5000円」: an amount per person, not a head count
            taken.append((start, end))
            unit = _UNITS.search(m.group(0).strip())
            name = _unit_name(unit.group(1)) if unit and kind != "date" else ""
            if kind == "age":
                name = "歳"  # "9 years old" and 「9歳」 (and not "5 old chairs", which counts chairs)
            if not name and kind == "count" and m.group(0).strip()[-1:].isalpha():
                name = _unit_name(m.group(0).split()[-1])  # "nine engineers" → engineer
            if not name and kind in ("number", "count", "money", "measure"):
                name = _counted(text[end:])
            found.append((start, Value(kind, m.group(0).strip(), name)))
    return tuple(v for _, v in sorted(found, key=lambda pair: pair[0]))


def located(text: str) -> list[tuple[Value, int, int]]:
    """The values of `text` (normalised) with where each stands (start, end), each found after the one before;
    a value whose text is not found there is left out."""
    out, pos = [], 0
    for v in values_of(text):
        start = text.find(v.text, pos)
        if start < 0:
            continue
        pos = start + len(v.text)
        out.append((v, start, pos))
    return out


NUMERAL = re.compile(
    r"\d(?:[\d,.]*\d)?(?:\s*[km]\b)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|a few|several|half an?)\b|[一二三四五六七八九十百千両半]+",
    _I,
)


_ONE_TO_TWELVE = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
_WORD_VALUES = {
    **{w: float(n) for n, w in enumerate(_ONE_TO_TWELVE)},
    **{"fifteen": 15.0, "twenty": 20.0, "thirty": 30.0, "forty": 40.0, "fifty": 50.0, "sixty": 60.0},
    **{"seventy": 70.0, "eighty": 80.0, "ninety": 90.0, "a": 1.0, "an": 1.0, "half": 0.5, "couple": 2.0},
}
# a scale word anywhere in the value; "k" and "m" only right after the figure ("4.5k", "$5m", not "5 min")
_SCALES = tuple(
    (re.compile(pattern), scale)
    for pattern, scale in (
        (r"\bk\b", 1e3),
        (r"\bthousand\b", 1e3),
        (r"\bgrand\b", 1e3),
        (r"\bhundred\b", 1e2),
        (r"\bmillion\b", 1e6),
        (r"^\s*m\b", 1e6),
    )
)
_JA_SCALES = {"千": 1e3, "万": 1e4, "億": 1e8}
_FIGURE = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?|\.\d+")
# a duration in minutes, by its unit, so that "75 mins" and "an hour" compare
_MINUTES = (
    (r"秒|\bsec|\bms\b", 1 / 60),
    (r"分|\bmin", 1.0),
    (r"時間|\bhours?\b|\bhrs?\b", 60.0),
    (r"週|\bweeks?\b", 7 * 1440.0),
    (r"か月|ヶ月|カ月|ケ月|\bmonths?\b", 30 * 1440.0),
    (r"年|\byears?\b", 365 * 1440.0),
    (r"日|泊|\bdays?\b", 1440.0),
)
_JA_DIGITS = dict(zip("〇一二三四五六七八九", range(10), strict=True))


def magnitude(value: Value) -> float | None:
    """How much a numeric value is, for comparing two of one kind ("$4,500" 4500, "4.5k" 4500, 「1,000万円」 1e7,
    "two grand" 2000, 「三人」 3); None for dates and times, and for what cannot be read."""
    if value.kind not in NUMERIC:
        return None
    text = value.text.lower()
    m = _FIGURE.search(text)
    if m:
        amount = float(m.group(0).replace(",", ""))
        rest = text[m.end() :]
    else:
        numbers = [(w, _WORD_VALUES[w]) for w in re.findall(r"[a-z]+", text) if w in _WORD_VALUES]
        ja = [_JA_DIGITS[c] for c in text if c in _JA_DIGITS]
        if numbers:
            # "a couple of hundred", "half an hour": the article only counts when no other number is said
            said = [n for w, n in numbers if w not in ("a", "an")]
            amount, rest = (said or [numbers[0][1]])[0], text
        elif ja:
            amount, rest = float(ja[0]), text
        else:
            return None
    for pattern, scale in _SCALES:
        if pattern.search(rest):
            amount *= scale
            break
    for mark, scale in _JA_SCALES.items():
        if mark in rest:
            amount *= scale
            break
    if value.kind == "duration":
        minutes = next((n for unit, n in _MINUTES if re.search(unit, text)), None)
        return amount * minutes if minutes is not None else None
    return amount


def shape(value: Value) -> str:
    """How a value is written, without its number: "$5k" → "$#k", 「週5000円」→「週#円」, "3 hours" → "# hour"."""
    text = NUMERAL.sub("#", value.text.lower())
    return f"{text}|{value.kind}" if text != "#" else f"#{value.unit}|{value.kind}"


def _masked(value: Value, mark: str) -> str:
    """A count's number masked, the words it counts kept: "two beehives" → "X beehives" (a goal's object
    must survive the masking of its count); any other value goes whole ("$2000", 「6月1日」)."""
    if value.kind not in ("count", "number"):
        return mark
    masked = NUMERAL.sub(mark, value.text)
    return masked if masked != value.text else mark


def replaced_values(text: str, new: tuple[Value, ...]) -> list[Value]:
    """The values of `text` (normalised) a newer statement with the values `new` replaces: those with a unit
    it names ("80 guests" → "95 guests"), else those of its kind, else (a bare number on either side) the
    numeric ones; when none matches (or it has no value), the one value of a single-valued `text`."""
    values = values_of(text)
    units = {(v.kind, v.unit) for v in new if v.unit}
    kinds = {v.kind for v in new}
    numeric = bool(kinds & NUMERIC)
    chosen = [v for v in values if (v.kind, v.unit) in units]
    chosen = chosen or [v for v in values if v.kind in kinds and not (v.unit and units and v.kind in dict(units))]
    bare = [v for v in values if numeric and v.kind in NUMERIC and ("number" in kinds or v.kind == "number")]
    return chosen or bare or (list(values) if len(values) == 1 else [])


def mask_replaced(text: str, new: tuple[Value, ...], mark: str) -> str:
    """`text` (normalised) with only the values a newer statement replaces masked: those with a unit it
    names ("80 guests" → "95 guests"), else those of its kind, else (a bare number on either side) the
    numeric ones. A value of another kind or unit stays, so a goal keeps its own numbers and dates ("Ballade
    No. 1", "lose 10 kg", 「2月25日の試験」) when its budget or schedule changes; a newer statement with no
    value, or none that matches, masks the one value of a single-valued `text` and nothing of a longer one.
    """
    t = normalize(text)
    chosen = replaced_values(t, new)
    out, pos = [], 0
    for v, start, end in located(t):
        out += [t[pos:start], _masked(v, mark) if v in chosen else v.text]
        pos = end
    out.append(t[pos:])
    return "".join(out)
