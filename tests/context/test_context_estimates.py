"""Round 48: a new estimate of what something comes to is a word of change (「40人近くになりそう」「超えそう」,
"realistically closer to 45", "it's looking like 300"), so it replaces the figure it re-estimates even when the
message opens by joining on (「それと、」); "also ..., so make it five rooms" changes what it names; a preposition
after a number is not what the number counts ("closer to 400 after the car"). The phrasings are written for these
tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import assert_set_anew, every_known_text

from mcpist.modules.context import _features as f

pytestmark = pytest.mark.anyio

ESTIMATES = [
    "それと、OBにも声をかけるので35人近くになりそうです。",
    "申込みが伸びていて、100件を超えそう",
    "Sign-ups have been slow, realistically closer to 45.",
    "it's looking like 300 people now",
]
JA = (
    "町内会の夏祭りの準備を手伝ってほしいです。",
    "参加者は25人くらいの見込みです。",
    "会場は公民館の和室です。",
    "それと、OBにも声をかけるので35人近くになりそうです。",
    "25人",
    "35人",
)
EN = (
    "Can you help me organise a charity fun run?",
    "We're expecting about 60 runners.",
    "The route is two laps of Victoria Park.",
    "Sign-ups have been slow, realistically closer to 45.",
    "60 runners",
    "closer to 45",
)
MAKE_IT = (
    "I'm booking a cottage weekend for the family, can you help?",
    "We need three bedrooms.",
    "Somewhere in the Lake District.",
    "Also, my brother's coming after all, so make it four bedrooms.",
    "three bedrooms",
    "four bedrooms",
)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {*ESTIMATES, *JA[:4], *EN[:4], *MAKE_IT[:4], "closer to 400 after the car"}
    assert not texts & every_known_text()


@pytest.mark.parametrize("text", ESTIMATES)
def test_a_new_estimate_is_a_word_of_change(text: str) -> None:
    assert f.CHANGE.search(f.normalize(text))


STATED_ONCE = ["駅の近くにあるホールです。", "参加者は25人くらいの見込みです。", "We're expecting 60."]


@pytest.mark.parametrize("text", STATED_ONCE)
def test_a_figure_stated_once_is_no_estimate_anew(text: str) -> None:
    assert not f.CHANGE.search(f.normalize(text))


@pytest.mark.parametrize("case", [JA, EN, MAKE_IT], ids=["ja-estimate", "en-estimate", "also-make-it"])
async def test_the_new_figure_replaces_the_old_and_the_rest_stays(ctx: Any, call: Any, case: tuple[str, ...]) -> None:
    goal, first, other, change, old, new = case
    await assert_set_anew(call, ctx, goal, first, other, change, old, new)


def test_an_addition_that_makes_it_a_new_figure_is_a_change() -> None:
    assert f.adds("Also, bring a dessert for the table.")
    assert not f.adds("Also, my brother's coming after all, so make it four bedrooms.")


def test_a_preposition_after_a_number_is_not_what_it_counts() -> None:
    (value,) = f.values_of("closer to 400 after the car")
    assert value.unit == ""
    assert f.values_of("40 staff after lunch")[0].unit == "staff"
