"""The two learned models, as weights shipped in `data/weights.npz` (trained by `_train.py`).

- Intent: multinomial logistic regression over [sentence embedding, cheap features] → the five
  labels of seed 004 §4.2.
- Same attribute: logistic regression over features of a (stored item, new statement) pair, some
  of which compare the item with the other stored candidates → the probability that the new
  statement sets the item's attribute anew (deadline, budget, head count, tool ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from . import _features as f

Label = Literal["PROBLEM_DEFINITION", "CONSTRAINT_ADDITION", "REFINEMENT", "QUESTION", "UNCLEAR"]
LABELS: tuple[Label, ...] = ("PROBLEM_DEFINITION", "CONSTRAINT_ADDITION", "REFINEMENT", "QUESTION", "UNCLEAR")
WEIGHTS = Path(__file__).parent / "data" / "weights.npz"

Vector = NDArray[np.float32]

PAIR_FEATURES: tuple[str, ...] = (
    "cos_sentence",
    "cos_attribute",
    "shared_kind",
    "shared_unit",
    "kind_mismatch",
    "new_without_value",
    "old_without_value",
    "revision",
    "change",
    "additive",
    "narrowing",
    "shared_terms",
    "shared_topic",
    "cos_attribute_x_revision",
    "shared_kind_x_revision",
    "shared_unit_x_revision",
    "valueless_without_cue",
    "shared_shape",
    # two amounts of one kind near each other (a factor of 2.5 at most: "$4,500" and "$6,800") or far apart (ten
    # times or more: "4.5k orders" and "2 shifts"): a value set anew seldom moves that far
    "close_magnitude",
    "far_magnitude",
    # among the stored candidates: the only one that shares a kind of value, or a unit, with the new
    # statement ("make that 40" after a single count), and the closest by what is set
    "only_shared_kind",
    "only_shared_unit",
    "closest_attribute",
    "closest_attribute_x_shared_kind",
    "latest_shared_kind",
    # the new statement is little more than a value ("16, forgot two", 「3時間もらえた」, "make it nine")
    "bare_x_shared_kind",
    "bare_x_only_shared_kind",
)
_BASE = 20
BARE_TERMS = 2  # a statement with a value and at most this many content words is little more than the value


@dataclass(frozen=True)
class Side:
    """One statement as the same-attribute model sees it."""

    text: str
    vector: Vector  # the sentence
    attribute: Vector  # the sentence with its values and revision words masked
    values: tuple[f.Value, ...]
    terms: frozenset[str]
    topic: str | None


@dataclass(frozen=True)
class Weights:
    intent_w: NDArray[np.float64]  # (labels, embedding + features)
    intent_b: NDArray[np.float64]
    pair_w: NDArray[np.float64]
    pair_b: float

    def intent(self, vector: Vector, features: Vector) -> dict[Label, float]:
        """Label probabilities of one sentence or message."""
        x = np.concatenate([vector.astype(np.float64), features.astype(np.float64)])
        logits = self.intent_w @ x + self.intent_b
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return {label: float(p[i]) for i, label in enumerate(LABELS)}

    def same_attribute(self, new: Side, olds: Sequence[Side]) -> list[float]:
        """For each stored statement, the probability that `new` sets the same attribute anew."""
        if not olds:
            return []
        z = pair_rows(new, olds) @ self.pair_w + self.pair_b
        return [1.0 / (1.0 + math.exp(-float(v))) for v in z]


def pair_rows(new: Side, olds: Sequence[Side]) -> NDArray[np.float64]:
    """The features of (new, old) for every candidate `old`, with those that compare the candidates."""
    base = np.stack([pair_features(new, old) for old in olds])
    kind, unit, attribute = base[:, 2], base[:, 3], base[:, 1]
    closest = (attribute >= attribute.max() - 1e-9).astype(np.float64)
    latest = np.zeros(len(olds))
    if kind.any():
        latest[int(np.flatnonzero(kind)[-1])] = 1.0  # candidates come oldest first
    only_kind = kind * (kind.sum() == 1)
    bare = 1.0 if new.values and len(new.terms) <= BARE_TERMS else 0.0
    extra = np.stack(
        [
            only_kind,
            unit * (unit.sum() == 1),
            closest,
            closest * kind,
            latest,
            bare * kind,
            bare * only_kind,
        ],
        axis=1,
    )
    return np.concatenate([base, extra], axis=1)


def pair_features(new: Side, old: Side) -> NDArray[np.float64]:
    # a value both say alike is what they have in common, not what either sets: "1枠30人" and "1枠40分" share
    # the slot, not a count; "a warranty of 12 months" and "a lease for 12 months" no kind of value
    common = {f.normalize(v.text).lower() for v in new.values} & {f.normalize(v.text).lower() for v in old.values}
    new_values = [v for v in new.values if f.normalize(v.text).lower() not in common]
    old_values = [v for v in old.values if f.normalize(v.text).lower() not in common]
    kinds_new = {v.kind for v in new_values}
    kinds_old = {v.kind for v in old_values}
    units_new = {v.unit for v in new_values if v.unit}
    units_old = {v.unit for v in old_values if v.unit}
    text = f.normalize(new.text)
    strong = 1.0 if f.REVISION.search(text) or f.ACCEPT.search(text) else 0.0
    change = 1.0 if f.CHANGE.search(text) else 0.0
    revision = max(strong, change)
    # a bare number matches any numeric kind: "budget around 400 bucks" → "I can stretch to 650"
    if "number" in kinds_new and kinds_old & f.NUMERIC:
        kinds_new = kinds_new | (kinds_old & f.NUMERIC)
    if "number" in kinds_old and kinds_new & f.NUMERIC:
        kinds_old = kinds_old | (kinds_new & f.NUMERIC)
    shared_kind = 1.0 if kinds_new & kinds_old else 0.0
    shared_unit = 1.0 if units_new & units_old else 0.0
    cos_attribute = float(new.attribute @ old.attribute)
    union = new.terms | old.terms
    row = [
        float(new.vector @ old.vector),
        cos_attribute,
        shared_kind,
        shared_unit,
        1.0 if kinds_new and kinds_old and not kinds_new & kinds_old else 0.0,
        0.0 if new.values else 1.0,
        0.0 if old.values else 1.0,
        strong,
        change,
        1.0 if f.ADDITIVE.search(text) else 0.0,
        1.0 if f.NARROWING.search(text) else 0.0,
        len(new.terms & old.terms) / len(union) if union else 0.0,
        1.0 if _shared_topic(new, old) else 0.0,
        cos_attribute * revision,
        shared_kind * revision,
        shared_unit * revision,
        # "It must be fast." → "It must be cheap.": alike sentences, no value, no word of change
        1.0 if not new.values and not old.values and not revision else 0.0,
        # "$5k" and "$6k", 「週5000円」and「週6000円」: written the same way but for the number
        1.0 if _shapes(new_values) & _shapes(old_values) else 0.0,
        *_magnitudes(new_values, old_values),
    ]
    assert len(row) == _BASE
    return np.asarray(row, dtype=np.float64)


CLOSE = 2.5
FAR = 10.0


def _magnitudes(new: Sequence[f.Value], old: Sequence[f.Value]) -> tuple[float, float]:
    """(close, far): how far apart the nearest two amounts of one kind are; a bare number ("make it 650")
    compares with any amount but a duration, whose unit it does not say, and two that each say what they count
    compare only when it is the same thing ("8 servers" is no "5 cooks"; a duration's unit is only its scale)."""
    ratios = []
    for a in new:
        for b in old:
            kinds = {a.kind, b.kind}
            if len(kinds) > 1 and ("number" not in kinds or "duration" in kinds):
                continue
            if a.unit and b.unit and a.unit != b.unit and "duration" not in kinds:
                continue  # a length and a weight, pages and projects: not two amounts of one thing
            x, y = f.magnitude(a), f.magnitude(b)
            if x and y and x > 0 and y > 0:
                ratios.append(max(x, y) / min(x, y))
    if not ratios:
        return 0.0, 0.0
    nearest = min(ratios)
    return (1.0 if nearest <= CLOSE else 0.0), (1.0 if nearest >= FAR else 0.0)


def _shapes(values: Sequence[f.Value]) -> set[str]:
    return {f.shape(v) for v in values if v.kind != "number"}  # a bare number's unit is only a guess


def _shared_topic(new: Side, old: Side) -> bool:
    new_text, old_text = f.normalize(new.text).lower(), f.normalize(old.text).lower()
    return bool((old.topic and old.topic in new_text) or (new.topic and new.topic in old_text))


def save(path: Path, weights: Weights) -> None:
    # float32 on disk: half the bytes, and the decisions do not depend on the last digits
    np.savez_compressed(
        path,
        intent_w=weights.intent_w.astype(np.float32),
        intent_b=weights.intent_b.astype(np.float32),
        pair_w=weights.pair_w.astype(np.float32),
        pair_b=np.asarray([weights.pair_b], dtype=np.float32),
        labels=np.asarray(LABELS),
        features=np.asarray(f.FEATURES),
        pair_features=np.asarray(PAIR_FEATURES),
    )


def load(path: Path = WEIGHTS) -> Weights:
    """Raises: ValueError: the file was trained for other labels or features than this code computes."""
    with np.load(path, allow_pickle=False) as data:
        names = (tuple(data["labels"]), tuple(data["features"]), tuple(data["pair_features"]))
        if names != (LABELS, f.FEATURES, PAIR_FEATURES):
            raise ValueError(f"{path.name} does not match this version's labels and features; run the training")
        return Weights(
            intent_w=data["intent_w"].astype(np.float64),
            intent_b=data["intent_b"].astype(np.float64),
            pair_w=data["pair_w"].astype(np.float64),
            pair_b=float(data["pair_b"][0]),
        )


@cache
def shipped() -> Weights:
    return load(WEIGHTS)
