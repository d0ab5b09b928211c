"""Round 51: a date said relative to today is a date (「明後日」「あさって」「今晩」, "the day after tomorrow", "the
week after next", "this weekend"), so a meeting brought forward to it replaces the date it had; and a request to
practise, check or correct only one part (「志望動機の答え方だけ練習させてください」, 「自己紹介の部分だけ添削して」)
keeps the work to that part. The phrasings are written for these tests and are in neither the training data nor the
development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play, stated

from mcpist.modules.context import _features as f
from mcpist.modules.context import _structure as st
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

RELATIVE = [
    "あさってに変更です",
    "明後日の朝でお願い",
    "今晩なら空いてます",
    "the day after tomorrow",
    "the week after next",
    "this weekend works",
]
PARTS = ["時間がないので、自己紹介の部分だけ添削してください。", "結論の段落だけチェックしてもらえますか"]
NOT_PARTS = ["2回だけ練習させてください", "3枚だけ確認してください"]
SESSION = ("面接の準備を手伝ってください。", "面接は来週の金曜です。", "先方の都合で、あさってに前倒しになりました。")
SCOPED = (
    "転職の面接対策をお願いしたいです。",
    "応募先は物流会社の総務職です。",
    "時間がないので、逆質問の部分だけ練習させてください。",
)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {*RELATIVE, *PARTS, *NOT_PARTS, *SESSION, *SCOPED} & every_known_text()


@pytest.mark.parametrize("text", RELATIVE)
def test_a_date_relative_to_today_is_a_date(text: str) -> None:
    assert [v.kind for v in f.values_of(text)] == ["date"]


@pytest.mark.parametrize("text", PARTS)
def test_checking_only_one_part_keeps_to_it(text: str) -> None:
    assert st.narrows_scope(text)


@pytest.mark.parametrize("text", NOT_PARTS)
def test_a_count_kept_to_is_no_part(text: str) -> None:
    assert not st.narrows_scope(text)


async def test_a_meeting_brought_forward_to_a_relative_date_replaces_the_old_one(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, *SESSION)
    said = stated(last)
    assert "あさって" in said and "来週の金曜" not in said, last["prompt"]


async def test_the_part_to_practise_joins_the_mission(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, *SCOPED)
    parts = sections(last["prompt"])
    assert "逆質問の部分" in parts["Mission"] and "総務職" in parts["Constraints"], last["prompt"]
