"""Round 50: a name alone on a message's last line, under a finished sentence, signs it even with no greeting
or closing ("…the stage is confirmed.\\nPriyanka"; in Japanese with the group it writes for, 「…決まりました。
\\n自治会\\u3000鈴木」), so it is not kept as a condition, and two such messages do not "replace" each other's
signature. The last item of a list ("Tools:\\nSlack\\nTrello") is no signature. The phrasings are written for these
tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play, stated

from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

GOAL_EN = "Could you help me plan our school's summer concert?"
SIGNED_EN = (
    "Update: the hall has confirmed the stage for the whole evening.\nPriyanka",
    "The choir will need 40 chairs on the left side.\nPriyanka",
)
GOAL_JA = "地区の防災訓練の段取りを一緒に考えてほしいです。"
SIGNED_JA = "会場は第二小学校の体育館に決まりました。\n三丁目自治会\u3000鈴木"
LISTED = "The tools the committee already uses:\nSlack\nTrello"


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {GOAL_EN, *SIGNED_EN, GOAL_JA, SIGNED_JA, LISTED} & every_known_text()


async def test_a_name_under_a_finished_sentence_is_no_condition(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, GOAL_EN, *SIGNED_EN)
    said = stated(last)
    assert "Priyanka" not in said, last["prompt"]
    assert "confirmed the stage" in said and "40 chairs" in said, last["prompt"]


async def test_a_japanese_signature_with_its_group_is_no_condition(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, GOAL_JA, SIGNED_JA)
    constraints = sections(last["prompt"])["Constraints"]
    assert "鈴木" not in constraints and "体育館" in constraints, last["prompt"]


async def test_the_last_item_of_a_list_is_no_signature(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, GOAL_EN, LISTED)
    assert "Trello" in stated(last), last["prompt"]


@pytest.mark.parametrize(
    "answer",
    [
        "The committee asked me which evening suits the caretaker.\nNext Thursday",
        "We had to find another venue for the concert.\nThe Old Chapel",
    ],
)
async def test_a_value_or_a_place_on_the_last_line_is_no_signature(ctx: Any, call: Any, answer: str) -> None:
    *_, last = await play(call, ctx, GOAL_EN, answer)
    assert answer.splitlines()[-1] in last["prompt"].split("# Recent Conversation")[0], last["prompt"]


async def test_a_name_after_a_blank_line_signs_too(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, GOAL_EN, "The school can lend us 60 music stands.\n\nPriyanka")
    said = stated(last)
    assert "60 music stands" in said and "Priyanka" not in said, last["prompt"]
