"""The deterministic intent classifier: bilingual cue rules that answer with seed 004 §4.2's JSON.

Each cue adds a weight to one label; the labels scoring 2 or more win (at most two, strongest
first). Like the seed's classifier it reads only the one message, never the conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from ._text import Language, detect_language

Label = Literal["PROBLEM_DEFINITION", "CONSTRAINT_ADDITION", "REFINEMENT", "QUESTION", "UNCLEAR"]
LABELS: tuple[Label, ...] = ("PROBLEM_DEFINITION", "CONSTRAINT_ADDITION", "REFINEMENT", "QUESTION", "UNCLEAR")


class Classification(BaseModel):
    """Seed 004 §4.2: at most two labels, strongest first, and why."""

    intent: list[Label] = Field(min_length=1, max_length=2)
    reason: str


@dataclass(frozen=True)
class Cue:
    label: Label
    weight: int
    pattern: re.Pattern[str]


def _cues(label: Label, weight: int, *patterns: str) -> list[Cue]:
    return [Cue(label, weight, re.compile(p, re.IGNORECASE)) for p in patterns]


_PD: Label = "PROBLEM_DEFINITION"
_CA: Label = "CONSTRAINT_ADDITION"
_RE: Label = "REFINEMENT"
_QU: Label = "QUESTION"

_VERB_STEM = r"[ぁ-んァ-ヶ一-龥]"

JA_CUES: list[Cue] = [
    # 「〜で/〜にしたい」「抑えたい」 wish for a condition, not for a goal
    *_cues(
        _PD,
        3,
        rf"{_VERB_STEM}(?<![にで]し)(?<![にで]やり)(?<!抑え)(?<!収め)(?<!まとめ)(?<!留め)たい"
        r"(?:んだ|んです|のです|のだ|です|と思|と考え|けど|けれど|が|な|。|\uff01|!|\s|、|$)",
    ),
    *_cues(
        _PD,
        3,
        r"(?:手伝って|助けて)(?:ほしい|欲しい|ください|くれ)",
        r"困って(?:い|る)",
        r"悩んで",
        r"相談(?:したい|に乗って|があ)",
    ),
    *_cues(
        _PD, 2, r"(?:考えて|検討して|計画して|探して)(?:いる|います|いて|おり)", r"目指して", r"(?:課題|目的|目標)は"
    ),
    *_cues(_CA, 3, r"ただし|但し", r"限定", r"に限り|に限ります|に限る", r"が条件", r"必須"),
    *_cues(_CA, 2, r"以内|以下|未満|以上|を超え|程度|前後|くらい|ぐらい", r"必ず|絶対に", r"までに", r"しか"),
    # 「NG」 in capitals and on its own: case-blind, it was the "ng" of "meeting"
    *_cues(_CA, 2, r"使わない|使わず|なしで|抜きで|避けて|禁止|考えていません|不可|だけ(?:で|に)|のみ"),
    *_cues(_CA, 2, r"(?-i:(?<![A-Za-z])NG(?![A-Za-z]))"),
    *_cues(
        _CA,
        2,
        r"(?:予算|費用|家賃|年収|食費|期限|締め?切り?|納期|人数|時間|文字数|場所|勤務地|形式|言語|ツール)[はをも]",
    ),
    *_cues(
        _CA,
        2,
        r"こと[。\uff01]?$",
        r"(?:がいい|が良い|がいいです|でお願い)",
        r"(?:に|で)(?:して|し)(?:ください|ほしい|欲しい)",
    ),
    *_cues(
        _CA, 2, r"だと(?:なお|より)?(?:良い|いい|助かり|嬉しい|うれしい)", r"(?:ターゲット|対象|聞き手|読者|相手)は"
    ),
    *_cues(_CA, 1, r"\d+\s*(?:万?円|ドル|人|名|日|週間|か月|ヶ月|カ月|時間|分|字|文字|枚|ページ|行|点)"),
    *_cues(_RE, 3, r"を中心に|から始め|を優先|に重点"),
    *_cues(_RE, 3, r"やっぱり|やっぱ|やはり|ではなく|じゃなくて|じゃなく|でなく", r"具体的に(?:は|言うと)?"),
    *_cues(_RE, 2, r"代わりに|に変更|変更して|変えて|訂正|むしろ|の方が(?:いい|良い)", r"さっきの|先ほどの|前に言った"),
    *_cues(
        _RE,
        2,
        r"でも(?:大丈夫|構いません|かまいません|いい|OK)|なら(?:大丈夫|構いません|OK)",
        r"増えて|減って|上げて|下げて",
    ),
    *_cues(_RE, 2, r"(?:に|と)?なりました", r"に絞って|に絞る"),
    *_cues(_QU, 3, r"[?\uff1f]"),
    *_cues(_QU, 2, r"(?:ですか|ますか|でしょうか|ませんか|(?<!よう)(?<!おう)かな|だろうか)[。]?$", r"教えて"),
    *_cues(_QU, 1, r"何|なに|どう(?!しよう)|どの|どれ|なぜ|なんで|いつ|どこ|誰|いくら"),
]

EN_CUES: list[Cue] = [
    *_cues(
        _PD,
        3,
        r"\bi(?: really)? (?:want|wanna|need|hope|plan) to\b",
        r"\b(?:wants|hopes|plans) to\b",
        r"\bi(?:'d| would) (?:like|love) to\b",
        r"\b(?:am|are|'m|'re) (?:trying|looking|planning|hoping|aiming) to\b",
        r"\b(?:we|our team|my team) (?:want|need|plan|would like|'d like) to\b",
        r"\b(?:i'm|i am|we're|we are) (?:planning|organizing|building|working on|writing|preparing)\b",
        r"\bhelp me\b",
        r"\b(?:my|our|the) goal is\b",
        r"\blooking for a way to\b",
    ),
    *_cues(_PD, 2, r"\bstruggling\b|\bhaving trouble\b|\bthe problem is\b", r"\bneed (?:help|a plan|advice)\b"),
    *_cues(_CA, 3, r"\bmust\b|\bhas to\b|\bhave to\b|\bneeds? to be\b|\brequired?\b", r"\bonly\b"),
    *_cues(
        _CA,
        2,
        r"\bshould (?:be|not|only|stay|have|run|use|support|work|go|include)\b",
        r"\bneeds? (?:at least|to (?:be|have|support|run|work|include|stay))\b",
    ),
    *_cues(
        _CA, 2, r"\b(?:under|below|less than|at most|no more than|up to|at least|within|max(?:imum)?|min(?:imum)?)\b"
    ),
    *_cues(_CA, 2, r"\b(?:budget|deadline|due)\b", r"\bcapped\b|\blimit(?:ed)?\b|\bkeep it\b|\bmake sure\b"),
    *_cues(_CA, 2, r"\b(?:don't|do not|never|avoid|without|nothing with|no)\b", r"\buse\b", r"\binclude\b"),
    *_cues(_CA, 2, r"\bprefer(?:ably)?\b", r"\b(?:audience|readers|target audience)\b"),
    *_cues(
        _CA,
        1,
        r"[$€£¥]\s?\d+\S*|\b\d+\s*(?:k|people|attendees|guests|days?|weeks?|months?|hours?|minutes?|pages?|words?)\b",
        r"\b\d+ of us\b",
    ),
    *_cues(_RE, 3, r"\bactually\b|\binstead\b|\brather than\b|\bon second thought\b|\bscratch that\b|\bi meant\b"),
    *_cues(_RE, 3, r"\bcorrection\b|\bto be (?:more )?specific\b|\bmore specifically\b"),
    *_cues(
        _RE, 2, r"\bchange (?:it|that|the|this)\b|\bswitch (?:to|it)\b|\bmake it\b|\blet's (?:go with|make|bump|do)\b"
    ),
    *_cues(_RE, 2, r"\b(?:is|are|would be) (?:fine|okay|ok)\b|\bafter all\b|\bbump\b|\bnarrow (?:it|that) down\b"),
    *_cues(_QU, 3, r"\?"),
    *_cues(_QU, 1, r"^(?:what|how|why|when|where|which|who|is|are|can|could|should|would|will|do|does|did|any)\b"),
    *_cues(_QU, 2, r"\btell me\b|\bexplain\b|\bany (?:ideas|suggestions|recommendations)\b|\bwhat do you think\b"),
]

# With no cue at all, a plain statement about the task ("趣味はガーデニングです", "The venue is
# downtown.") still makes the request more specific; only then is it a refinement.
_STATEMENT: dict[Language, re.Pattern[str]] = {
    "ja": re.compile(r"^[^?\uff1f]*(?:は|が|も)[^?\uff1f]*(?:です|ます|でした|あります|います)[。\uff01]?$"),
    "en": re.compile(r"^(?:the|our|my|it|this|they|we)\b[^?]*\b(?:is|are|has|have|was|were)\b[^?]*$", re.I),
}

_PRIORITY: dict[Label, int] = {_RE: 0, _CA: 1, _PD: 2, _QU: 3, "UNCLEAR": 4}

_NAMES: dict[Language, dict[Label, str]] = {
    "ja": {
        _PD: "課題の提示",
        _CA: "制約・条件の追加",
        _RE: "既存の要求の具体化・修正",
        _QU: "質問",
        "UNCLEAR": "判別不能",
    },
    "en": {
        _PD: "a problem definition",
        _CA: "an added constraint",
        _RE: "a refinement of an earlier request",
        _QU: "a question",
        "UNCLEAR": "unclear",
    },
}


def _scores(text: str, cues: list[Cue]) -> tuple[dict[Label, int], dict[Label, list[str]]]:
    scores: dict[Label, int] = {}
    evidence: dict[Label, list[str]] = {}
    for cue in cues:
        match = cue.pattern.search(text)
        if match is None:
            continue
        scores[cue.label] = scores.get(cue.label, 0) + cue.weight
        snippet = match.group(0).strip() or match.group(0)
        evidence.setdefault(cue.label, []).append(snippet)
    return scores, evidence


def _reason(language: Language, chosen: list[Label], evidence: dict[Label, list[str]]) -> str:
    names = _NAMES[language]
    if chosen == ["UNCLEAR"]:
        if language == "ja":
            return "どのラベルの手がかりも見つからないため判別不能とした。"
        return "No cue for any label was found, so the intent is unclear."
    parts = []
    for label in chosen:
        cues = evidence.get(label, [])[:3]
        if language == "ja":
            parts.append("、".join(f"「{c}」" for c in cues) + f"から{names[label]}と判断")
        else:
            parts.append(", ".join(f"'{c}'" for c in cues) + f" signal {names[label]}")
    if language == "ja":
        return "。".join(parts) + "。"
    return "; ".join(parts) + "."


def classify(message: str, language: Language | None = None) -> Classification:
    """Label one user message by cue rules (deterministic)."""
    lang = language or detect_language(message)
    text = " ".join(message.split())
    scores, evidence = _scores(text, JA_CUES if lang == "ja" else EN_CUES)
    if not scores and _STATEMENT[lang].search(text):
        scores[_RE] = 1
        evidence[_RE] = [text if len(text) <= 40 else text[:39] + "…"]
    if scores.get(_RE, 0) >= 2:
        # a revision cue makes the condition or goal it names the thing being refined
        scores.pop(_CA, None)
        scores.pop(_PD, None)
    ranked = sorted(scores, key=lambda label: (-scores[label], _PRIORITY[label]))
    chosen = ranked[:1] if ranked else []
    chosen += [label for label in ranked[1:2] if scores[label] >= 3]
    # a question that comes with a goal or a condition is secondary to it (seed 004's own example)
    chosen.sort(key=lambda label: label == _QU)
    if not chosen:
        chosen = ["UNCLEAR"]
    return Classification(intent=chosen, reason=_reason(lang, chosen, evidence))
