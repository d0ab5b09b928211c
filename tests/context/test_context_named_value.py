"""Round 57: what a terse statement sets is named by the word right before its value ("rent £950", "term 3
years", "food budget around £60 a week"), and a Japanese topic may hold a numeral that is not an amount
(「二次会は」「三者面談は」). With no word of change, a statement that names what it sets replaces only a stored
one that can set the same thing: "rent £1,050" leaves "salary £2,600 after tax", 「二次会は3000円」 leaves
「会費は6000円」. Words that lead a value without naming anything ("max", "honestly", "legal says") name nothing,
and a day of the week still names what is set (「土曜は2時間」 beside 「平日は30分」). The phrasings are written for
these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play, stated

from mcpist.modules.context._attributes import attribute_of

pytestmark = pytest.mark.anyio

NAMED = [
    ("rent £950", "en", "rent"),
    ("term 3 years, renewable", "en", "term"),
    ("food budget around £60 a week", "en", "food budget"),
    ("commute's 25 miles each way", "en", "commute"),
    ("Chapters of about 4,000 words.", "en", "chapter"),
    ("二次会は2500円の予定です。", "ja", "二次会"),
    ("三者面談は15分です", "ja", "三者面談"),
    ("土曜は2時間ほど勉強できます。", "ja", "土曜"),
]
UNNAMED = [
    ("legal says 4 years", "en"),
    ("max 2 hours of driving a day", "en"),
    ("honestly 3 hours is plenty", "en"),
    ("hes 8 and loves trains", "en"),
    ("Sunday 14 June works", "en"),
    ("twice a week at most", "en"),
    ("二人は電車で来ます", "ja"),
]
EN = ("I want to plan my monthly spending.", "salary £2,600 after tax", "rent £1,050")
JA = ("同窓会の幹事をやります。段取りを手伝って。", "会費は6000円くらいで考えてる", "二次会は3000円で探したい")
JA_POLITE = ("忘年会の幹事を頼まれました。", "会費は1人5000円です。", "二次会は2000円くらいの店を探します。")
WEEKDAY = (
    "資格試験の勉強計画を立ててください。",
    "土曜は2時間ほど勉強できます。",
    "勉強時間は、平日は1日30分ほど取れます。",
)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {t for t, *_ in NAMED} | {t for t, _ in UNNAMED} | {*EN, *JA, *JA_POLITE, *WEEKDAY}
    assert not texts & every_known_text()


@pytest.mark.parametrize(("text", "language", "attribute"), NAMED)
def test_the_word_before_the_value_names_what_is_set(text: str, language: Any, attribute: str) -> None:
    assert attribute_of(text, language) == attribute


@pytest.mark.parametrize(("text", "language"), UNNAMED)
def test_words_that_only_lead_a_value_name_nothing(text: str, language: Any) -> None:
    assert attribute_of(text, language) is None


@pytest.mark.parametrize(
    ("session", "kept"),
    [(EN, "£2,600"), (JA, "6000円"), (JA_POLITE, "5000円"), (WEEKDAY, "土曜は2時間")],
    ids=["en", "ja", "ja-polite", "weekday"],
)
async def test_a_statement_naming_another_attribute_replaces_nothing(
    ctx: Any, call: Any, session: tuple[str, ...], kept: str
) -> None:
    *_, last = await play(call, ctx, *session)
    said = stated(last)
    assert kept in said and session[-1].rstrip("。")[:6] in said, last["prompt"]
