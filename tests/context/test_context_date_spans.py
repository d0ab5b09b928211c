"""Round 54: a span of days is one date ("25-26 October", "3 to 5 May", "May 3-5"), not a bare number and a date,
so the number cannot pass for a count and the span is replaced as the date it is; "shifted" is a word of change;
a verb after a number ("62 have registered", "3 more joined") is not what it counts. The phrasings are written for
these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import assert_set_anew, every_known_text

from mcpist.modules.context import _features as f

pytestmark = pytest.mark.anyio

SPANS = ["We're away 14-16 November.", "The fair runs 3 to 5 May.", "Booked for Sept 9-11.", "on 21\u201323 June"]
VERBS = [("Sign-ups closed and 48 have registered.", "48"), ("4 more joined this week.", "4")]
SESSION = (
    "Can you help me plan a weekend away with my sister?",
    "We're away 14-16 November.",
    "We'd like somewhere with a spa.",
    "The airline shifted our flights, so it's 21-23 November.",
    "14-16 November",
    "21-23 November",
)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {*SPANS, *(t for t, _ in VERBS), *SESSION[:4]} & every_known_text()


@pytest.mark.parametrize("text", SPANS)
def test_a_span_of_days_is_one_date(text: str) -> None:
    values = f.values_of(text)
    assert [v.kind for v in values] == ["date"], values


def test_shifted_is_a_word_of_change() -> None:
    assert f.CHANGE.search("The airline shifted our flights.")


@pytest.mark.parametrize(("text", "number"), VERBS)
def test_a_verb_after_a_number_is_not_what_it_counts(text: str, number: str) -> None:
    value = next(v for v in f.values_of(text) if v.text == number)
    assert value.unit == "", value


async def test_a_span_moved_replaces_the_span(ctx: Any, call: Any) -> None:
    await assert_set_anew(call, ctx, *SESSION)
