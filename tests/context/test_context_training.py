"""The labelled training set in the package and the weights trained from it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mcpist.modules.context import _attributes, _corpus, _features, _intent, _train
from mcpist.modules.context._encoder import shared_encoder
from mcpist.modules.context._text import Tokenizer, detect_language

DIALOG_FILES = [Path(__file__).parent / "dialogs.json", Path(__file__).parent / "dialogs_held_out.json"]


def test_the_training_set_is_large_bilingual_and_labelled() -> None:
    data = _train.training_set()
    languages = Counter(detect_language(text) for text, _ in data.turns)
    assert len(data.turns) >= 1500 and min(languages.values()) >= 0.45 * len(data.turns)
    assert set(label for _, label in data.turns) == set(_intent.LABELS)
    assert sum(same for *_, same in data.pairs) >= 300 and len(data.pairs) >= 1500
    dialogs = _corpus.dialogs()
    assert len({d.domain for d in dialogs}) >= 25 and len({d.style for d in dialogs}) >= 8
    assert len({d.id for d in dialogs}) == len(dialogs)
    for dialog in dialogs:
        for turn in dialog.turns:
            assert 1 <= len(turn.intent) <= 2 and set(turn.intent) <= set(_intent.LABELS)
            assert all(phrase in turn.user for phrase in turn.sets.values()), turn
            assert turn.goal is None or (turn.goal in turn.user and "PROBLEM_DEFINITION" in turn.intent), turn
        held: dict[str, str] = {}
        for turn in dialog.turns:
            for key, phrase in turn.sets.items():
                # else the evaluation could not tell the old value from the new one
                assert key not in held or held[key] not in turn.user, (dialog.id, key)
                held[key] = phrase


def test_the_training_set_does_not_copy_the_evaluation_dialogs() -> None:
    import json

    evaluation = {t["user"] for path in DIALOG_FILES for d in json.loads(path.read_text()) for t in d["turns"]}
    data = _train.training_set()
    texts = {text for text, _ in data.turns} | {t for old, new, _ in data.pairs for t in (old, new)}
    assert not texts & evaluation


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("X | hello", "unknown labels"),
        ("C budget=$300 | I have $200.", "phrase in the text"),
        ("C budget=$300 I have $300.", "LABELS"),
        ("PQC goal=x | x", "unknown labels"),
    ],
)
def test_a_malformed_line_is_refused(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "dialogs_x.txt"
    path.write_text(f"== x-1 test terse\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        _corpus.read_dialogs(path)


def test_dialog_pairs_group_the_candidates_of_each_revision() -> None:
    dialog = _corpus.Dialog("x", "d", "s", "f")
    dialog.turns = [
        _corpus.Turn("Plan a party.", ["PROBLEM_DEFINITION"], goal="party"),
        _corpus.Turn("Budget is $300.", ["CONSTRAINT_ADDITION"], sets={"budget": "$300"}),
        _corpus.Turn("At the park.", ["CONSTRAINT_ADDITION"], sets={"place": "park"}),
        _corpus.Turn("make that $400", ["REFINEMENT"], sets={"budget": "$400"}),
    ]
    *_, last = _corpus.dialog_pairs(dialog)
    assert [(p.old, p.same) for p in last] == [("Budget is $300.", True), ("At the park.", False)]


def test_retraining_reproduces_the_shipped_weights() -> None:
    weights, _ = _train.train(shared_encoder(), Tokenizer.load().terms)
    shipped = _intent.shipped()
    for name in ("intent_w", "intent_b", "pair_w", "pair_b"):
        # stored as float32: equal up to that rounding
        assert np.allclose(getattr(weights, name), getattr(shipped, name), atol=1e-5), name


def test_weights_for_other_features_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "weights.npz"
    np.savez(path, labels=np.asarray(_intent.LABELS), features=np.asarray(["x"]), pair_features=np.asarray(["y"]))
    with pytest.raises(ValueError, match="run the training"):
        _intent.load(path)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("予算は交通費込みで20万円以内", ["money"]),
        ("Deadline is June 3.", ["date"]),
        ("締切、来週水曜に延ばせる\uff1f", ["date", "date"]),
        ("I can spend at most 5 hours a week.", ["duration", "frequency"]),
        ("Cap it at 20 users.", ["count"]),
        ("スマホからの購入が8割です", ["percent"]),
        ("It should go out every Monday at 9am.", ["frequency", "time"]),
        ("チームで使いたい", []),
    ],
)
def test_values_are_typed(text: str, kinds: list[str]) -> None:
    assert [v.kind for v in _features.values_of(text)] == kinds


def test_the_attribute_text_masks_values_and_revision_words() -> None:
    assert _attributes.attribute_text("Scratch that, we now have until July 1.", "en") == "we now have until X"
    assert _attributes.attribute_text("Around 25 guests.", "en") == "Around X guests"
    assert _attributes.attribute_text("やっぱり予算は30万円まで", "ja") == "予算は\u3007\u3007万円まで"
    assert _attributes.topic_of("リモートなら、勤務地はどこでも構いません。", "ja") == "勤務地"
    assert _attributes.topic_of("Let's bump the budget to $2500.", "en") == "budget"
