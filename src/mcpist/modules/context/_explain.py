"""Why a message got its labels and why each item is stored or replaced, in the message's language."""

from __future__ import annotations

from ._intent import Label
from ._text import Language


def _clip(text: str, limit: int = 40) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _p(probs: dict[Label, float], label: Label) -> str:
    return f"{label} {probs[label]:.2f}"


def first_goal(language: Language, probs: dict[Label, float]) -> str:
    if language == "ja":
        return f"最初の実質的なメッセージなので目的(課題の提示)とした(モデル: {_p(probs, 'PROBLEM_DEFINITION')})"
    return f"the first substantive message states the goal (model: {_p(probs, 'PROBLEM_DEFINITION')})"


def new_goal(language: Language, probs: dict[Label, float]) -> str:
    if language == "ja":
        return f"新しい目的の提示とモデルが判断した({_p(probs, 'PROBLEM_DEFINITION')})"
    return f"the model reads a new goal ({_p(probs, 'PROBLEM_DEFINITION')})"


def goal_condition(language: Language) -> str:
    if language == "ja":
        return "目的の文が条件(値)も含むため、後の変更で置き換えられるよう制約としても保持する"
    return "the goal also states a condition (a value), kept here so that a later change can replace it"


def introduction(language: Language) -> str:
    if language == "ja":
        return "自己紹介で、まだ目的を述べていないため、背景として保持する(目的は次の依頼から)"
    return "a self-introduction that asks for nothing yet: kept as background, the goal comes with the first request"


def requirement(language: Language, probs: dict[Label, float]) -> str:
    if language == "ja":
        return f"目的の後の平叙文で質問ではないため、守るべき条件とした(モデル: {_p(probs, 'CONSTRAINT_ADDITION')})"
    return f"a statement after the goal, not a question: a requirement (model: {_p(probs, 'CONSTRAINT_ADDITION')})"


def refinement(language: Language, cue: str | None, probs: dict[Label, float]) -> str:
    why = f"「{cue}」" if cue and language == "ja" else f"'{cue}'" if cue else f"({_p(probs, 'REFINEMENT')})"
    if language == "ja":
        return f"{why}から既存の要求の具体化・修正とした"
    return f"{why} makes it a refinement of an earlier request"


def replaces(language: Language, old: str, probability: float) -> str:
    if language == "ja":
        return f"「{_clip(old)}」と同じ属性を設定するため、これを置き換える(同属性 p={probability:.2f})"
    return f"sets the same attribute as '{_clip(old)}', which it replaces (same attribute p={probability:.2f})"


def replaced_by(language: Language, new: str, probability: float, cue: str | None) -> str:
    said = (f"、「{cue}」" if language == "ja" else f", cue '{cue}'") if cue else ""
    if language == "ja":
        return f"「{_clip(new)}」が同じ属性を新しい値で設定した(p={probability:.2f}{said})"
    return f"'{_clip(new)}' set the same attribute to a new value (p={probability:.2f}{said})"


def kept_part(language: Language, old: str, new: str) -> str:
    if language == "ja":
        return f"「{_clip(old)}」のうち、「{_clip(new)}」が設定し直さなかった部分"
    return f"the part of '{_clip(old)}' that '{_clip(new)}' did not set anew"


def refines(language: Language, parent: str) -> str:
    if language == "ja":
        return f"「{_clip(parent)}」を具体化する"
    return f"narrows '{_clip(parent)}'"


def question(language: Language) -> str:
    if language == "ja":
        return "質問であり、制約としては保存しない"
    return "a question; questions are not stored as constraints"


def accepted(language: Language, cue: str) -> str:
    if language == "ja":
        return f"「{cue}」で問いかけた値を受け入れている"
    return f"'{cue}' accepts the value the question proposes"


def filler(language: Language) -> str:
    if language == "ja":
        return "あいさつ・相づちのみで、保存する内容はない"
    return "only a greeting or acknowledgement; nothing to keep"


def external(language: Language, by: str, reason: str) -> str:
    if language == "ja":
        return f"{by}の判定: {reason}"
    return f"labelled by {by}: {reason}"


def join(language: Language, parts: list[str]) -> str:
    parts = [p for p in dict.fromkeys(parts) if p]
    if language == "ja":
        return "。".join(parts) + "。"
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "."
