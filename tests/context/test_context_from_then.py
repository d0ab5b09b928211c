"""Round 40: what holds from a time on (「来月から…」, "from next month", "as of today") or has come to be
(「…となりました」, "they brought it forward", "the agency came back with …") says a condition changes, as
"actually" does: the stated value it sets anew is replaced, not kept beside the new one. The phrasings are written
for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import assert_set_anew, every_known_text

from mcpist.modules.context import _features as f

pytestmark = pytest.mark.anyio

DIALOGS = [
    (
        "I'm planning the weekly five-a-side games for our office.",
        "Games are on Tuesdays.",
        "Pitch hire is £45 an hour.",
        "From next month it's Thursdays.",
        "Tuesdays",
        "Thursdays",
    ),
    (
        "I'm sorting out a timetable for my revision group.",
        "The mock exam is on 20 March.",
        "We meet in the school library.",
        "The school brought it forward to 13 March.",
        "20 March",
        "13 March",
    ),
    (
        "ピアノ教室の発表会の段取りを考えています。",
        "日程は3月8日です。",
        "会場は市民ホールの小ホールです。",
        "ホールの都合で、3月15日となりました。",
        "3月8日",
        "3月15日",
    ),
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {m for row in DIALOGS for m in row[:4]} & every_known_text()


@pytest.mark.parametrize(
    "text",
    [
        "from next term the class is on Mondays",
        "As of today the limit is 20.",
        "They brought the launch forward.",
        "The printer came back with a quote of £300.",
        "来週から集合は9時です。",
        "今回から会費は無料となりました。",
    ],
)
def test_what_holds_from_a_time_on_says_something_changes(text: str) -> None:
    assert f.CHANGE.search(f.normalize(text))


@pytest.mark.parametrize(
    "text", ["We're open from 9 to 5.", "The courier came back for the parcel.", "来月の会議室を予約したい。"]
)
def test_a_time_alone_says_nothing_changes(text: str) -> None:
    t = f.normalize(text)
    assert not (f.REVISION.search(t) or f.CHANGE.search(t))


@pytest.mark.parametrize(("goal", "first", "other", "news", "old", "new"), DIALOGS)
async def test_a_value_from_a_time_on_replaces_the_old_one(
    ctx: Any, call: Any, goal: str, first: str, other: str, news: str, old: str, new: str
) -> None:
    await assert_set_anew(call, ctx, goal, first, other, news, old, new)
