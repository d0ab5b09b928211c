"""Round 38: how far apart two amounts of one kind are says whether the newer one sets the older anew. A value set
anew seldom moves by ten times or more ("4.5k orders a day" does not set "2 shifts of 25 pickers"), and one
within a factor of 2.5 of a stored amount of its kind likely does ("Finance came back with $15,000" after
"$12,000"). The phrasings are written for these tests and are in neither the training data nor the development
sets."""

from __future__ import annotations

import math

import pytest
from phrasings import every_known_text

from mcpist.modules.context import _features as f
from mcpist.modules.context import _train
from mcpist.modules.context._encoder import shared_encoder
from mcpist.modules.context._intent import Side, shipped
from mcpist.modules.context._text import Tokenizer


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("$4,500 a month", 4500.0),
        ("about 3.2k", 3200.0),
        ("two grand", 2000.0),
        ("my partner says four thousand", 4000.0),
        ("a couple of hundred quid", 200.0),
        ("予算は1,200万円です", 1.2e7),
        ("75 minutes", 75.0),
        ("an hour and a bit", 60.0),
        ("2泊", 2880.0),
        ("3 weeks", 3 * 7 * 1440.0),
    ],
)
def test_the_magnitude_of_an_amount(text: str, amount: float) -> None:
    (value, *_) = f.values_of(text)
    assert f.magnitude(value) == pytest.approx(amount)


def test_dates_and_times_have_no_magnitude() -> None:
    assert [f.magnitude(v) for v in f.values_of("on 12 March at 3pm")] == [None, None]


PAIRS = [
    ("The quote came back at $5,100.", "The quote was $4,200.", "The quote was $420."),
    ("We expect 450 visitors.", "We expect 380 visitors.", "We expect 38 visitors."),
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {m for row in PAIRS for m in row} & every_known_text()


@pytest.mark.parametrize(("new", "near", "far"), PAIRS)
def test_an_amount_near_the_stored_one_sets_it_anew_more_likely_than_one_ten_times_off(
    new: str, near: str, far: str
) -> None:
    """The two stored statements differ only in their amount: the model tells them apart by how far it is from
    the new one. Compared as log-odds, which a word of change in the new statement does not flatten near 1
    (without the two features they differ by less than 0.3)."""
    tokenizer, weights, encoder = Tokenizer.load(), shipped(), shared_encoder()

    def side(text: str) -> Side:
        return _train.side(text, encoder, lambda t: tokenizer.terms(t, "en"))

    p_near, p_far = (weights.same_attribute(side(new), [side(old)])[0] for old in (near, far))
    assert math.log(p_near / (1 - p_near)) - math.log(p_far / (1 - p_far)) > 2.0, (p_near, p_far)
