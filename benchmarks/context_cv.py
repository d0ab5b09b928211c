"""Held-out-by-construction checks of module `context` on its own training data.

    .venv/bin/python benchmarks/context_cv.py                       # dialogs split by domain, 5 folds
    .venv/bin/python benchmarks/context_cv.py --by style            # ... by writing style (voice, slack, keigo ...)
    .venv/bin/python benchmarks/context_cv.py --by source           # ... by file: each file's dialogs unseen in turn
    .venv/bin/python benchmarks/context_cv.py --train a --test b      # one author's files (all of them) → another's
    .venv/bin/python benchmarks/context_cv.py --train a,b,c --test d  # ... → the development set (data/dev_d_*.txt)
    .venv/bin/python benchmarks/context_cv.py --shipped --test d      # the shipped weights on the development set
    .venv/bin/python benchmarks/context_cv.py --shipped --test e      # ... on the set built around goal statements
    .venv/bin/python benchmarks/context_cv.py -v                    # list every miss

Each fold trains both models (intent and same attribute) on the other folds' dialogs plus the
single turns and written pairs, then plays the fold's dialogs through the module's reading and
planning (in memory, no database: `_reading.read` → `_plan.plan_turn` → `_synth.synthesize`, as
`add_turn` does) and scores them as `benchmarks/context_eval.py` does: first label and exact label
set per turn, goal kept and prompt right per dialog. A whole domain (or style, or file) is unseen
when its dialogs are played, so the figures say how the model carries over to other subjects and
phrasings, not how well it remembers its own sentences. The development sets (`data/dev_*.txt`, by
authors the training never reads) are played only when `--test` names their author. With -v each
prompt miss says why, from what the store holds (goal turn not stored, goal text masked, replacement
missed, wrong replacement ...). Sentence vectors are kept between runs in the temporary directory
(context_cv_vectors.npz); a text's vector never changes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from mcpist.modules.context import _corpus, _intent, _plan, _reading, _train
from mcpist.modules.context._encoder import CachedEncoder
from mcpist.modules.context._features import features
from mcpist.modules.context._model import SessionRow, Store
from mcpist.modules.context._synth import sections, synthesize
from mcpist.modules.context._text import Tokenizer, detect_language

NOW = datetime(2026, 1, 1, tzinfo=UTC)
CACHE = Path(tempfile.gettempdir()) / "context_cv_vectors.npz"


class DiskCachedEncoder(CachedEncoder):
    """The module's encoder with its vectors kept on disk between runs (a text's vector never changes)."""

    def __init__(self, path: Path) -> None:
        super().__init__(capacity=10_000_000)
        self.path = path
        if path.is_file():
            with np.load(path, allow_pickle=False) as data:
                self._cache.update(zip(data["texts"].tolist(), data["vectors"], strict=True))
        self._known = len(self._cache)

    def save(self) -> None:
        if len(self._cache) > self._known:
            texts = list(self._cache)
            np.savez(self.path, texts=np.asarray(texts), vectors=np.stack([self._cache[t] for t in texts]))


@dataclass
class Tally:
    turns: int = 0
    first: int = 0
    exact: int = 0
    alone: int = 0  # the intent model on the whole message, without the dialog's structure
    dialogs: int = 0
    goal_kept: int = 0
    prompt_right: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    causes: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("turns", "first", "exact", "alone", "dialogs", "goal_kept", "prompt_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.kinds.update(other.kinds)
        self.causes.update(other.causes)
        self.misses += other.misses

    def line(self) -> str:
        def pct(a: int, b: int) -> str:
            return f"{a}/{b} = {a / b:.1%}" if b else "-"

        return (
            f"  intent first label {pct(self.first, self.turns)}; exact set {pct(self.exact, self.turns)}; "
            f"message alone {pct(self.alone, self.turns)}\n"
            f"  goal kept {pct(self.goal_kept, self.dialogs)}; prompt right {pct(self.prompt_right, self.dialogs)}; "
            f"misses: {dict(self.kinds) or 'none'}"
            + "".join(f"\n    {n} x {why}" for why, n in sorted(self.causes.items(), key=lambda kv: (-kv[1], kv[0])))
        )


def expected(dialog: _corpus.Dialog) -> tuple[list[str], dict[str, str], set[str]]:
    goals: list[str] = []
    active: dict[str, str] = {}
    replaced: set[str] = set()
    for turn in dialog.turns:
        if turn.goal is not None:
            goals.append(turn.goal)
        for key, phrase in turn.sets.items():
            if key in active:
                replaced.add(active[key])
            active[key] = phrase
    return goals, active, replaced - set(active.values())


def successors(dialog: _corpus.Dialog) -> dict[str, str]:
    """Each replaced phrase and the phrase that set its attribute last."""
    last: dict[str, str] = {}
    keys: dict[str, str] = {}
    for turn in dialog.turns:
        for key, phrase in turn.sets.items():
            if key in last:
                keys[last[key]] = key
            last[key] = phrase
    return {old: last[key] for old, key in keys.items() if old != last[key]}


def cause(kind: str, phrase: str, store: Store, dialog: _corpus.Dialog) -> str:
    """Why a phrase is missing from (or still in) the final prompt, from what the store holds."""
    holding = [item for item in store.items if phrase in item.text]
    goals = [item for item in holding if item.kind == "problem"]
    if kind == "goal lost":
        if not holding:
            return "goal turn not stored (read as question or small talk)"
        if not goals:
            return "goal turn stored as a constraint"
        if any(item.active for item in goals):
            return "goal text masked"
        return "goal dropped"
    if kind == "active missing":
        if not holding:
            return "not stored (read as question or small talk)"
        if all(not item.active for item in holding):
            return "wiped by a later replacement"
        return "masked in the goal"
    active = [item for item in holding if item.active]
    if active and all(item.kind == "problem" for item in active):
        return "still in the goal text (not masked)"
    new = successors(dialog).get(phrase, "")
    newer = [item for item in store.items if new and new in item.text]
    if not newer:
        return "new value not stored (read as question or small talk)"
    replaced = [item for item in store.items if item.superseded_by in {n.id for n in newer}]
    return "wrong replacement (another item replaced)" if replaced else "replacement missed"


def play(dialog: _corpus.Dialog, weights: _intent.Weights, encoder: CachedEncoder, tokenizer: Tokenizer) -> Tally:
    """One dialog through reading, planning and synthesis, as `add_turn` runs them."""
    tally = Tally(dialogs=1)
    store = Store(SessionRow(dialog.id, "cv", None, None, 0, NOW, NOW))
    prompt = ""
    for turn in dialog.turns:
        language = detect_language(turn.user)
        texts = _reading.texts_to_embed(turn.user, language) + _plan.texts_to_embed(store)
        vectors = dict(zip(texts, encoder.encode(texts), strict=True))
        reading = _reading.read(turn.user, language, vectors, weights)
        plan = _plan.plan_turn(
            store,
            reading=reading,
            external=None,
            terms_of=lambda text, lang=language: tokenizer.terms(text, lang),  # type: ignore[misc]
            vectors=vectors,
            weights=weights,
            df={},
            n_docs=0,
            max_keywords=5,
            core_max_items=5,
            turn_window=3,
            now=NOW,
        )
        plan.exchange.response = "(回答)" if language == "ja" else "(answer)"
        store = plan.store
        prompt = synthesize(store, language)
        got = plan.classification.intent
        whole = encoder.encode([turn.user])[0]
        probs = weights.intent(whole, features(turn.user, language))
        tally.turns += 1
        tally.first += got[0] in turn.intent
        tally.exact += set(got) == set(turn.intent)
        tally.alone += max(probs, key=lambda k: probs[k]) == turn.intent[0]
        if set(got) != set(turn.intent):
            tally.misses.append(f"{dialog.id}: {turn.user!r} gold {turn.intent} got {got}")
    parts = sections(prompt)
    mission = parts.get("Mission", "")
    stated = mission + parts.get("Constraints", "")
    goals, active, replaced = expected(dialog)
    found = {
        "goal lost": [g for g in goals if g not in mission],
        "active missing": [p for p in active.values() if p not in stated],
        "replaced still stated": [p for p in replaced if p in stated],
    }
    tally.goal_kept += not found["goal lost"]
    tally.prompt_right += not any(found.values())
    for kind, phrases in found.items():
        tally.kinds[kind] += len(phrases)
        for p in phrases:
            why = cause(kind, p, store, dialog)
            tally.causes[f"{kind}: {why}"] += 1
            tally.misses.append(f"{dialog.id}: {kind}: {p!r} ({why})")
    return tally


def folds_by(dialogs: list[_corpus.Dialog], key: str, k: int) -> list[list[str]]:
    """Groups (domains, styles or files) dealt into k folds, largest first, each to the smallest fold."""
    sizes = Counter(getattr(d, key) for d in dialogs)
    folds: list[list[str]] = [[] for _ in range(min(k, len(sizes)))]
    load = [0] * len(folds)
    for group, size in sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])):
        i = int(np.argmin(load))
        folds[i].append(group)
        load[i] += size
    return folds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--by", choices=["domain", "style", "source"], default="domain")
    parser.add_argument("-k", type=int, default=5, help="number of folds")
    parser.add_argument("--train", nargs="*", help="authors (a b, or a,b) whose files to train on; the rest is tested")
    parser.add_argument("--test", nargs="*", help="authors whose dialogs to test on (with --train or --shipped)")
    parser.add_argument("--shipped", action="store_true", help="play --test (or everything) with the shipped weights")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    for name in ("train", "test"):
        if getattr(args, name) is not None:
            setattr(args, name, [a for part in getattr(args, name) for a in part.split(",") if a])

    encoder = DiskCachedEncoder(CACHE)
    tokenizer = Tokenizer.load()
    trained = _corpus.dialogs()
    # only the named authors' files are read: a set kept for clean measuring is never opened here
    dev = [d for a in sorted(set(args.test or [])) for d in _corpus.dialogs(pattern=f"dev_{a}_*.txt")]
    everything = trained + dev

    def picks(authors: list[str] | None) -> set[str]:
        return {d.id for d in everything if authors is None or _corpus.author(d.source) in authors}

    plans: list[tuple[str, set[str], set[str]]] = []  # (name, training dialog ids, tested dialog ids)
    files = None if args.train is None else lambda stem: _corpus.author(stem) in args.train
    if args.shipped:
        plans.append(("shipped weights", set(), picks(args.test)))
    elif args.train is not None:
        train = picks(args.train)
        test = picks(args.test) - train if args.test else {d.id for d in everything} - train
        plans.append((f"train {' '.join(args.train)}", train, test))
    else:
        for fold in folds_by(everything, args.by, args.k):
            test = {d.id for d in everything if getattr(d, args.by) in fold}
            plans.append((", ".join(fold), {d.id for d in everything} - test, test))

    total = Tally()
    for name, train, test in plans:
        if args.shipped:
            weights = _intent.shipped()
        else:
            dataset = _train.training_set(keep=lambda d, ids=train: d.id in ids, files=files)  # type: ignore[misc]
            weights = _train.fit(dataset, encoder, tokenizer.terms)
        tally = Tally()
        for dialog in (d for d in everything if d.id in test):
            tally.add(play(dialog, weights, encoder, tokenizer))
        print(f"[{name}] {tally.dialogs} dialogs unseen:\n{tally.line()}")
        if args.verbose:
            print("\n".join(f"    {m}" for m in tally.misses))
        total.add(tally)
    if len(plans) > 1:
        print(f"all folds ({args.by}):\n{total.line()}")
    encoder.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
