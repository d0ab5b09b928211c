"""The development set (author c, never trained on) and the structural rules it brought out."""

from __future__ import annotations

from collections import Counter

from mcpist.modules.context import _corpus, _train
from mcpist.modules.context._reading import sentences_of
from mcpist.modules.context._text import detect_language
from mcpist.modules.context._values import mask_values


def test_the_development_set_is_bilingual_and_never_trained_on() -> None:
    dev = _corpus.dialogs(pattern="dev_*.txt")
    assert len(dev) >= 60 and {_corpus.author(d.source) for d in dev} == {"c"}
    languages = Counter(detect_language(d.turns[0].user) for d in dev)
    assert min(languages.values()) >= 0.45 * len(dev)
    assert all(any(t.goal for t in d.turns) for d in dev)
    trained = {text for text, _ in _train.training_set().turns}
    assert not trained & {t.user for d in dev for t in d.turns if t.intent != ["UNCLEAR"]}  # "sweet", 🙏 may repeat


def test_list_numbers_are_no_sentences() -> None:
    message = "Where things stand:\n1. 60 players expected\n2) Saturday March 8\n③ 5 rounds"
    assert sentences_of(message) == ["Where things stand:", "60 players expected", "Saturday March 8", "5 rounds"]
    assert sentences_of("How many? 2.") == ["How many?", "2."]  # an answer, not a list number


def test_masking_keeps_what_a_count_counts() -> None:
    # the goal's object survives when its count is replaced; other values go whole
    assert mask_values("keep two beehives alive", {"count"}, "X") == "keep X beehives alive"
    assert mask_values("a trip under $2000", {"money"}, "X") == "a trip under X"
