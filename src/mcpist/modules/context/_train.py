"""Training of the shipped weights from the labelled set in `data/` (run `benchmarks/context_train.py`).

Deterministic: full-batch accelerated gradient descent from zero weights with a fixed step and
number of steps, no sampling and no shuffling, and each text is embedded on its own. Running it
again reproduces `data/weights.npz`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from . import _attributes as at
from . import _corpus
from . import _features as f
from ._corpus import DATA, Dialog
from ._encoder import Encoder
from ._intent import LABELS, Side, Weights, pair_rows
from ._reading import sentences_of
from ._text import detect_language

Array = NDArray[np.float64]
TermsOf = Callable[[str], list[str]]

INTENT_L2 = 1e-3
PAIR_L2 = 1e-3
STEPS = 800
RATE = 2.0


@dataclass(frozen=True)
class TrainingSet:
    turns: list[tuple[str, str]]  # (text, first gold label)
    groups: list[list[_corpus.Pair]]  # a new statement and the stored ones it may replace (same new text)
    dialogs: int

    @property
    def pairs(self) -> list[tuple[str, str, bool]]:
        """(old, new, same attribute)"""
        return [(p.old, p.new, p.same) for group in self.groups for p in group]


def training_set(
    data: Path = DATA, keep: Callable[[Dialog], bool] | None = None, files: Callable[[str], bool] | None = None
) -> TrainingSet:
    """The dialogs `keep` accepts, and the single turns and written pairs of the files (by name) `files`
    accepts; everything by default."""
    found = [d for d in _corpus.dialogs(data) if keep is None or keep(d)]
    turns = [(t.user, t.intent[0]) for d in found for t in d.turns]
    turns += [(t.user, t.intent[0]) for t in _corpus.single_turns(data, files)]
    groups = [[_sentences(p) for p in group] for d in found for group in _corpus.dialog_pairs(d)]
    groups += [[p] for p in _corpus.written_pairs(data, files)]
    return TrainingSet(turns=turns, groups=groups, dialogs=len(found))


def _sentence(text: str, phrase: str) -> str:
    """The sentence of a message that holds the phrase: the store keeps one item per sentence."""
    return next((s for s in sentences_of(text) if phrase and phrase in s), text)


def _sentences(pair: _corpus.Pair) -> _corpus.Pair:
    return replace(pair, old=_sentence(pair.old, pair.old_phrase), new=_sentence(pair.new, pair.new_phrase))


def labels_of(dataset: TrainingSet) -> NDArray[np.int64]:
    names: list[str] = list(LABELS)
    return np.asarray([names.index(label) for _, label in dataset.turns], dtype=np.int64)


def intent_inputs(texts: list[str], encoder: Encoder) -> Array:
    vectors = encoder.encode(texts).astype(np.float64)
    feats = np.stack([f.features(t, detect_language(t)) for t in texts]).astype(np.float64)
    return np.concatenate([vectors, feats], axis=1)


def side(text: str, encoder: Encoder, terms_of: TermsOf) -> Side:
    language = detect_language(text)
    vectors = encoder.encode([text, at.attribute_text(text, language)])
    return Side(text, vectors[0], vectors[1], f.values_of(text), frozenset(terms_of(text)), at.topic_of(text, language))


def _descend(grad: Callable[[Array], Array], size: int) -> Array:
    """Nesterov's accelerated gradient descent from zero with a fixed step: deterministic and quick."""
    w = np.zeros(size)
    v = w.copy()
    for k in range(STEPS):
        nxt = v - RATE * grad(v)
        v = nxt + (k / (k + 3)) * (nxt - w)
        w = nxt
    return w


def fit_softmax(x: Array, y: NDArray[np.int64], classes: int, l2: float) -> tuple[Array, Array]:
    """Multinomial logistic regression with an L2 penalty on the weights (not the biases)."""
    n, d = x.shape
    onehot = np.eye(classes)[y]

    def grad(theta: Array) -> Array:
        w, b = theta[: d * classes].reshape(d, classes), theta[d * classes :]
        logits = x @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        err = (p - onehot) / n
        return np.concatenate([(x.T @ err + l2 * w).ravel(), err.sum(axis=0)])

    theta = _descend(grad, d * classes + classes)
    return theta[: d * classes].reshape(d, classes).T.copy(), theta[d * classes :]


def fit_binary(x: Array, y: NDArray[np.float64], l2: float) -> tuple[Array, float]:
    """Logistic regression with an L2 penalty on the weights (not the bias)."""
    n, d = x.shape

    def grad(theta: Array) -> Array:
        w, b = theta[:d], theta[d]
        err = (1.0 / (1.0 + np.exp(-(x @ w + b))) - y) / n
        return np.concatenate([x.T @ err + l2 * w, [err.sum()]])

    theta = _descend(grad, d + 1)
    return theta[:d], float(theta[d])


def train(encoder: Encoder, terms_of: TermsOf, data: Path = DATA) -> tuple[Weights, TrainingSet]:
    dataset = training_set(data)
    return fit(dataset, encoder, terms_of), dataset


def fit(dataset: TrainingSet, encoder: Encoder, terms_of: TermsOf) -> Weights:
    x = intent_inputs([t for t, _ in dataset.turns], encoder)
    y = labels_of(dataset)
    intent_w, intent_b = fit_softmax(x, y, len(LABELS), INTENT_L2)
    sides: dict[str, Side] = {}
    for old, new, _ in dataset.pairs:
        for text in (old, new):
            if text not in sides:
                sides[text] = side(text, encoder, terms_of)
    px = np.concatenate([pair_rows(sides[g[0].new], [sides[p.old] for p in g]) for g in dataset.groups])
    py = np.asarray([1.0 if same else 0.0 for _, _, same in dataset.pairs])
    pair_w, pair_b = fit_binary(px, py, PAIR_L2)
    return Weights(intent_w, intent_b, pair_w, pair_b)
