"""Replacement by attribute (round 8): a new statement replaces a stored one only when both set the same
attribute. The phrasings are written for these tests and are not in the training or development data."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, known_texts, play, stated

from mcpist.modules.context import _attributes as at
from mcpist.modules.context import _features as f
from mcpist.modules.context._text import Language

pytestmark = pytest.mark.anyio

MINE = {
    "参加は中学生30人です。": "見守りは保護者4人です。",
    "平日は30分だけ練習できます。": "週末は2時間練習できます。",
    "We have 18 players on the squad.": "Three of them are goalkeepers.",
}


def test_none_of_these_phrasings_is_training_or_development_data() -> None:
    assert not (set(MINE) | set(MINE.values())) & known_texts("def")


@pytest.mark.parametrize(
    ("text", "kind"),
    [("moving on the 30th", "date"), ("pushed to the 2nd so we have time", "date"), ("time -> Wed 6pm", "date")],
)
def test_an_ordinal_day_and_a_short_weekday_are_dates(text: str, kind: str) -> None:
    assert kind in {v.kind for v in f.values_of(text)}


def test_an_ordinal_that_is_not_a_day_is_no_date() -> None:
    assert "date" not in {v.kind for v in f.values_of("we meet on the 4th floor")}


def test_a_finish_is_no_word_of_change() -> None:
    assert not f.CHANGE.search("仕上げはニス仕上げでお願いします")
    assert f.CHANGE.search("予算を上げてもいいです")


@pytest.mark.parametrize(
    ("text", "language", "attribute"),
    [
        ("仕事の都合で、練習できるのは平日は30分だけです", "ja", "平日"),  # the first topic that is a noun
        ("部活を辞めたので、平日も1時間に増やせます", "ja", "平日"),
        ("週末は2時間練習できます", "ja", "週末"),  # a time of week may be what is set
        ("通えるのは土日だけです", "ja", None),  # a clause made a noun names no attribute
        ("上司と話して、10万円まで使えることになりました", "ja", None),  # nor does a clause before a comma
        ("予算、月3万円まで", "ja", "予算"),
        ("The budget is $400.", "en", "budget"),
        ("venue -> town hall", "en", "venue"),
        ("Grandpa is chipping in, so $700.", "en", None),  # whoever acts is no attribute
    ],
)
def test_the_attribute_a_statement_names(text: str, language: Language, attribute: str | None) -> None:
    assert at.attribute_of(text, language) == attribute


def test_a_part_of_a_group_is_no_new_total() -> None:
    assert f.PART.search("Three of them are goalkeepers.") and f.PART.search("うち2人は初心者です")
    assert not f.PART.search("Most of the team works remotely") and not f.PART.search("うちは駅から遠いです")


@pytest.mark.parametrize(
    ("goal", "old", "new"),
    [
        ("地域の清掃活動を企画したいです。", "参加は中学生30人です。", "見守りは保護者4人です。"),
        ("ピアノの練習計画を立てたいです。", "平日は30分だけ練習できます。", "週末は2時間練習できます。"),
        (
            "I coach a youth football team and need a training plan.",
            "We have 18 players on the squad.",
            "Three of them are goalkeepers.",
        ),
    ],
)
async def test_a_value_of_the_same_kind_for_another_attribute_replaces_nothing(
    ctx: Any, call: Any, goal: str, old: str, new: str
) -> None:
    *_, result = await play(call, ctx, goal, old, new)
    assert result["superseded"] == [] and old in stated(result) and new in stated(result)


async def test_a_word_of_change_replaces_the_item_that_names_the_same_attribute(ctx: Any, call: Any) -> None:
    old, other = "平日は30分だけ練習できます。", "週末は2時間練習できます。"
    new = "部活を辞めたので、平日も1時間に増やせます。"
    *_, result = await play(call, ctx, "ピアノの練習計画を立てたいです。", old, other, new)
    assert result["superseded"] == [old] and other in stated(result) and old not in stated(result)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Cap it at 20 users.", "Let's allow 50 users after all."),
        ("予算は月3万円です。", "予算は月4万円になりました。"),
    ],
)
async def test_a_change_of_value_on_the_same_attribute_still_replaces(ctx: Any, call: Any, old: str, new: str) -> None:
    *_, result = await play(call, ctx, "We need a plan for our new team wiki.", old, new)
    assert result["superseded"] == [old] and new in stated(result) and old not in stated(result)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we can put about three thousand pounds towards it", "three thousand pounds"),
        ("the kitchen fitter wants two grand up front", "two grand"),
        ("I'd rather not go over 250 quid", "250 quid"),
        ("a couple of hundred quid is fine for the frame", "a couple of hundred quid"),
        ("fifty dollars a head for the dinner", "fifty dollars"),
    ],
)
def test_an_amount_said_in_words_or_with_a_spoken_currency_is_money(text: str, value: str) -> None:
    assert not {text} & every_known_text()
    assert ("money", value) in {(v.kind, v.text) for v in f.values_of(text)}


@pytest.mark.parametrize("text", ["we had a grand day out at the coast", "the recipe needs two pounds of flour"])
def test_grand_and_pounds_that_are_no_amount_of_money(text: str) -> None:
    assert "money" not in {v.kind for v in f.values_of(text)}


def test_a_multiplier_is_no_unit() -> None:
    """ "my partner says four thousand" is a bare amount (unit-less, as 4000 is), not four of something."""
    (value,) = f.values_of("my partner says four thousand, with the bonus")
    assert (value.kind, value.unit) == ("number", "")
