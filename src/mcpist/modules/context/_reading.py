"""Reading one user message: its sentences, what the model makes of each, and the role each plays.

The model (`_intent.py`) scores each sentence; the dialog's structure then decides:
- the first substantive message states the goal, unless it is only a greeting or thanks;
- after that, a declarative sentence that is not a question is a requirement by default, and only
  a sentence the model is sure states a new goal joins the mission;
- a question is never stored as a constraint, unless the message accepts what it asks
  (「〜に延ばせる? じゃあそれで」, "Can we push it to May 19? Then let's go with that.").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from . import _features as f
from ._intent import Label, Vector, Weights
from ._text import Language, split_sentences

Role = Literal["goal", "statement", "question", "filler"]

_ACCEPT_ALONE = 30  # a sentence this short that accepts belongs to the sentence before it
NEW_GOAL = 0.8  # after the goal, a sentence joins the mission only when the model is this sure


@dataclass(frozen=True)
class Sentence:
    text: str
    vector: Vector
    attribute: Vector
    values: tuple[f.Value, ...]
    probs: dict[Label, float]
    interrogative: bool
    filler: bool

    @property
    def top(self) -> Label:
        return max(self.probs, key=lambda label: self.probs[label])


@dataclass(frozen=True)
class Reading:
    message: str
    language: Language
    sentences: tuple[Sentence, ...]
    accepted: str | None  # 「じゃあそれで」: the message adopts the value its question proposes
    revision: str | None
    narrowing: str | None


def sentences_of(message: str) -> list[str]:
    """The message's sentences and bullet points; 「じゃあそれで」 stays with the question it accepts."""
    out: list[str] = []
    for part in split_sentences(message):
        text = part.lstrip("・-*•● ").strip()
        if not text:
            continue
        if out and f.ACCEPT.search(text) and len(text) <= _ACCEPT_ALONE:
            out[-1] += " " + text
        else:
            out.append(text)
    return out or [message.strip()]


def texts_to_embed(message: str, language: Language) -> list[str]:
    out: list[str] = []
    for s in sentences_of(message):
        out += [s, f.attribute_text(s, language)]
    return out


def read(message: str, language: Language, vectors: Mapping[str, Vector], weights: Weights) -> Reading:
    """`vectors` must hold every text of `texts_to_embed(message, language)`."""
    sentences = []
    for text in sentences_of(message):
        values = f.values_of(text)
        sentences.append(
            Sentence(
                text=text,
                vector=vectors[text],
                attribute=vectors[f.attribute_text(text, language)],
                values=values,
                probs=weights.intent(vectors[text], f.features(text, language)),
                interrogative=f.is_interrogative(text),
                filler=f.is_filler(text),
            )
        )
    return Reading(
        message=message,
        language=language,
        sentences=tuple(sentences),
        accepted=f.cue(f.ACCEPT, message),
        revision=f.cue(f.REVISION, message) or f.cue(f.CHANGE, message),
        narrowing=f.cue(f.NARROWING, message),
    )


def _model_role(s: Sentence, reading: Reading) -> Role:
    if s.filler or (s.top == "UNCLEAR" and not s.values):
        return "filler"
    if s.interrogative and not reading.accepted:
        return "question"
    if s.top == "QUESTION" and not reading.accepted:
        return "question"
    return "goal" if s.top == "PROBLEM_DEFINITION" else "statement"


def _first_roles(reading: Reading, model: list[Role]) -> list[Role]:
    """The first substantive message: all of it states the goal, but for the sentences that only set a
    value (「予算は5万円です。」), which are constraints, and questions next to a statement of the goal.
    """
    content = [i for i, r in enumerate(model) if r != "filler"]
    if not content:
        return model
    out: list[Role] = ["filler"] * len(model)
    for i in content:
        s = reading.sentences[i]
        sets_value = any(v.kind != "date" for v in s.values) and s.top != "PROBLEM_DEFINITION"
        if len(content) > 1 and sets_value and not s.interrogative:
            out[i] = "statement"
        elif len(content) > 1 and s.interrogative:
            out[i] = "question"
        else:
            out[i] = "goal"
    if "goal" not in out:
        out = ["filler" if i not in content else "goal" for i in range(len(model))]
    return out


def roles(reading: Reading, has_goal: bool) -> list[Role]:
    """The role of each sentence, by the model and the dialog's structure."""
    out = [_model_role(s, reading) for s in reading.sentences]
    if not has_goal:
        return _first_roles(reading, out)
    for i, s in enumerate(reading.sentences):
        if out[i] == "goal" and (s.probs["PROBLEM_DEFINITION"] < NEW_GOAL or reading.revision):
            out[i] = "statement"
    return out


def external_roles(reading: Reading, labels: list[Label], has_goal: bool) -> list[Role]:
    """Roles that follow labels given from outside (the LLM or the cue rules) for the whole message."""
    model = roles(reading, has_goal)
    given = set(labels)
    content = [r != "filler" for r in model]
    if not has_goal and any(content) and "PROBLEM_DEFINITION" not in given:
        given.add("PROBLEM_DEFINITION")  # the mission is never empty once something was said
    wants_goal = "PROBLEM_DEFINITION" in given
    wants_statement = bool(given & {"CONSTRAINT_ADDITION", "REFINEMENT"})
    out: list[Role] = []
    for role, has in zip(model, content, strict=True):
        if not has:
            out.append("filler")
        elif role == "goal" and wants_goal:
            out.append("goal")
        elif role in ("goal", "statement") and wants_statement:
            out.append("statement")
        elif role == "question":
            out.append("question")
        else:
            out.append("goal" if wants_goal else "statement" if wants_statement else "question")
    if wants_goal and "goal" not in out and any(content):
        first = content.index(True)
        out[first] = "goal"
    if wants_statement and "statement" not in out:
        out = ["statement" if r == "question" else r for r in out]
    return out


def strongest(probs: Mapping[Label, float]) -> tuple[Label, float]:
    label = max(probs, key=lambda k: probs[k])
    return label, float(np.round(probs[label], 2))
