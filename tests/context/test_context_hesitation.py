"""Round 46: a hesitation and "that's all" (「えー、そんなところです」, "um, that's about it"), and a "cheers"
that opens a sentence of thanks, are small talk; "NG" is a negation in capitals and on its own only, no longer
the end of every English "-ing" (which made "thank you, this is a useful starting point" set something). A
sentence that also sets something is none of these. The phrasings are written for these tests and are in
neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _features as f
from mcpist.modules.context import _rules as rules
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

SMALL_TALK = [
    "えっと、まあそんな感じです",
    "はい、あー、以上となります。",
    "erm, that's all for now",
    "Cheers, that's a massive help.",
    "Thanks, this is a really promising starting point.",
]
NOT_SMALL_TALK = [
    "えっと、会場は体育館です。",
    "um, that's about it for the budget: £300 max",
    "cheers mate, but keep it under 20 slides",
    "Thanks, and nothing before 9am please.",
    "We're organising a thank-you dinner for the nurses.",  # a kind of dinner, no thanks
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    rules_texts = {"議事録はmeetingの翌日に共有", "Zoomのrecordingについて", "写真撮影はNGでお願いします"}
    assert not {*SMALL_TALK, *NOT_SMALL_TALK, *rules_texts} & every_known_text()


@pytest.mark.parametrize("text", SMALL_TALK)
def test_a_hesitation_or_thanks_alone_is_small_talk(text: str) -> None:
    assert f.is_filler(text)


@pytest.mark.parametrize("text", NOT_SMALL_TALK)
def test_a_sentence_that_sets_something_is_no_small_talk(text: str) -> None:
    assert not f.is_filler(text)


@pytest.mark.parametrize("text", ["写真はNG", "NGワードは避けて", "no photos"])
def test_a_negation_still_reads_as_one(text: str) -> None:
    assert f._NEGATION_EN.search(text)


@pytest.mark.parametrize("text", ["starting point", "we're going camping", "Ng Wei is the organiser"])
def test_ng_inside_a_word_or_a_name_is_no_negation(text: str) -> None:
    assert not f._NEGATION_EN.search(text)


async def test_thanks_for_a_starting_point_is_not_kept_as_a_condition(ctx: Any, call: Any) -> None:
    goal, size = "I'd like a plan for clearing out my late aunt's flat.", "It's a two-bedroom flat on the third floor."
    thanks = "Thanks, this is a really promising starting point."
    *_, last = await play(call, ctx, goal, size, thanks)
    assert last["classification"]["intent"] == ["UNCLEAR"], last["classification"]
    assert "starting point" not in sections(last["prompt"])["Constraints"], last["prompt"]


@pytest.mark.parametrize("text", ["議事録はmeetingの翌日に共有", "Zoomのrecordingについて"])
def test_the_cue_rules_read_no_ng_inside_an_english_word(text: str) -> None:
    # the cue classifier (`classifier = "rules"`) had the same case-blind 「NG」: "meeting" read as a condition
    assert "「ng」" not in rules.classify(text, "ja").reason.lower()


def test_the_cue_rules_still_read_ng() -> None:
    assert rules.classify("写真撮影はNGでお願いします", "ja").intent == ["CONSTRAINT_ADDITION"]
