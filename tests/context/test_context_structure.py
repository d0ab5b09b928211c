"""The dialog's structure on top of the model: where the goal is, what is small talk, what a bare
revision replaces. The phrasings are written for these tests and are not in the training data."""

from __future__ import annotations

from typing import Any

import pytest

from mcpist.modules.context import _corpus
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio


async def _turns(call: Any, ctx: Any, *messages: str) -> tuple[str, list[dict[str, Any]]]:
    sid: str = (await call(ctx, "start_session"))["session_id"]
    results = [await call(ctx, "add_turn", session_id=sid, message=m) for m in messages]
    return sid, results


def _parts(result: dict[str, Any]) -> tuple[str, str]:
    parts = sections(result["prompt"])
    return parts["Mission"], parts["Constraints"]


def test_none_of_these_phrasings_is_training_data() -> None:
    texts = {t.user for d in _corpus.dialogs() for t in d.turns} | {t.user for t in _corpus.single_turns()}
    mine = {
        "味噌づくりってどうやって始めればいいんですか\uff1f発酵食品に興味が出てきて。",
        "it's raining again here lol",
        "I'm hoping to plan a surprise party for my dad's 60th.",
        "is a deposit normally refundable or not",
        "梅干しって何日くらい干せばいいのかな",
        "Separately, I also want to build a sign-up sheet for the volunteers.",
        "土日も含めて6日分にしてもらえますか。",
        "make that 35",
    }
    assert not mine & texts


async def test_a_question_shaped_first_request_is_the_goal(ctx: Any, call: Any) -> None:
    _, (result,) = await _turns(
        call, ctx, "味噌づくりってどうやって始めればいいんですか\uff1f発酵食品に興味が出てきて。"
    )
    mission, _ = _parts(result)
    assert "味噌づくり" in mission and result["classification"]["intent"][0] == "PROBLEM_DEFINITION"


async def test_a_long_first_message_keeps_its_goal_and_splits_off_its_values(ctx: Any, call: Any) -> None:
    message = (
        "Hello! Quick background: I coach a swim team at the local pool. The parents keep asking for a "
        "season calendar and I want to put one together that covers meets and practices. "
        "There are 26 swimmers."
    )
    _, (result,) = await _turns(call, ctx, message)
    mission, constraints = _parts(result)
    assert "season calendar" in mission and "There are 26 swimmers." in constraints
    assert "26 swimmers" not in mission


async def test_small_talk_taken_for_the_goal_lets_the_real_goal_join(ctx: Any, call: Any) -> None:
    _, results = await _turns(
        call, ctx, "it's raining again here lol", "I'm hoping to plan a surprise party for my dad's 60th."
    )
    mission, _ = _parts(results[-1])
    assert "surprise party" in mission


@pytest.mark.parametrize(
    ("goal", "question"),
    [
        ("I need a rental agreement for my flat.", "is a deposit normally refundable or not"),
        ("梅干しを漬けてみたいです。", "梅干しって何日くらい干せばいいのかな"),
    ],
)
async def test_a_question_without_a_question_mark_is_not_stored(ctx: Any, call: Any, goal: str, question: str) -> None:
    _, (_, result) = await _turns(call, ctx, goal, question)
    assert result["classification"]["intent"] == ["QUESTION"] and result["stored_as"] == []


async def test_a_separate_request_joins_the_mission(ctx: Any, call: Any) -> None:
    _, results = await _turns(
        call,
        ctx,
        "We're organising a charity fun run in the park.",
        "Separately, I also want to build a sign-up sheet for the volunteers.",
    )
    mission, _ = _parts(results[-1])
    assert "charity fun run" in mission and "sign-up sheet" in mission


@pytest.mark.parametrize(
    ("goal", "old", "new"),
    [
        (
            "1週間分の夕食の献立を考えてほしいです。",
            "平日4日分だけで大丈夫です。",
            "土日も含めて6日分にしてもらえますか。",
        ),
        ("We're setting up a book club.", "Cap it at 25 members.", "make that 35"),
    ],
)
async def test_a_revision_without_a_word_of_change_replaces(ctx: Any, call: Any, goal: str, old: str, new: str) -> None:
    _, (*_, result) = await _turns(call, ctx, goal, old, new)
    mission, constraints = _parts(result)
    assert result["superseded"] == [old] and new in constraints and old not in mission + constraints


@pytest.mark.parametrize("ack", ["thanks!!", "👍", "ok go with that", "じゃあそれで"])
async def test_an_acknowledgement_replaces_nothing(ctx: Any, call: Any, ack: str) -> None:
    _, (*_, result) = await _turns(call, ctx, "Plan a picnic for the team.", "Budget is $150.", ack)
    assert result["superseded"] == [] and "Budget is $150." in _parts(result)[1]
