"""Round 36: news told about the work ("good news, …", "bad news: …", "plot twist: …", "update from the office:
…", 「朗報です、…」) and a count redone ("Recounted: …", 「数え直したら…」) say that what follows changes a
condition, as "actually" does: the stated value it sets anew is replaced, not kept beside the new one. The
phrasings are written for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import assert_set_anew, every_known_text

from mcpist.modules.context import _features as f

pytestmark = pytest.mark.anyio

DIALOGS = [
    (
        "I need a seating plan for my sister's wedding reception.",
        "There are 96 guests.",
        "The venue only has round tables of eight.",
        "Bad news: the groom's side added a dozen, so 108 guests.",
        "96 guests",
        "108 guests",
    ),
    (
        "Can you help me organise the allotment watering rota?",
        "Six of us share the plot.",
        "Watering happens every second evening in summer.",
        "Plot twist, two neighbours have joined, eight of us in total.",
        "Six of us",
        "eight of us",
    ),
    (
        "I'm costing a school trip to the science museum.",
        "Coach hire is £640 for the day.",
        "Year 8 are going, with five teachers.",
        "Update from the coach firm: £710 for the day with the fuel surcharge.",
        "£640",
        "£710",
    ),
    (
        "夏祭りの屋台の配置を考えたいです。",
        "屋台は6つ出します。",
        "会場は神社の境内です。",
        "朗報です、商店会が加わってくれて屋台は9つです。",
        "屋台は6つ",
        "屋台は9つ",
    ),
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {m for row in DIALOGS for m in row[:4]} & every_known_text()


@pytest.mark.parametrize(
    "text",
    [
        "Good news, the caretaker found more chairs.",
        "bad news - the hall is double-booked",
        "plot twist: my brother is coming after all",
        "Update from the council: the permit is for 200 people.",
        "quick update, the caterer can only do 60",
        "scrap the Friday session",
        "Recounted the boxes, 34 not 31.",
        "続報です、参加は12人になりそうです。",
        "数え直したら段ボールは34箱でした。",
    ],
)
def test_news_and_recounts_say_something_changes(text: str) -> None:
    t = f.normalize(text)
    assert f.REVISION.search(t) or f.CHANGE.search(t)


@pytest.mark.parametrize(
    "text", ["Please update the spreadsheet with the new totals.", "The news team needs 3 slides."]
)
def test_the_words_alone_are_no_announcement(text: str) -> None:
    t = f.normalize(text)
    assert not (f.REVISION.search(t) or f.CHANGE.search(t))


@pytest.mark.parametrize(("goal", "first", "other", "news", "old", "new"), DIALOGS)
async def test_news_that_sets_a_value_anew_replaces_the_old_one(
    ctx: Any, call: Any, goal: str, first: str, other: str, news: str, old: str, new: str
) -> None:
    await assert_set_anew(call, ctx, goal, first, other, news, old, new)
