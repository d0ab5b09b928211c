"""The default classifier and replacement by attribute, on the failure kinds of issue 13.

The examples are the issue's own (each names a kind of failure); the dialogs that found them are
not in this repository.
"""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import stated

from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio


async def _turns(call: Any, ctx: Any, *messages: str) -> tuple[str, list[dict[str, Any]]]:
    sid: str = (await call(ctx, "start_session"))["session_id"]
    results = [await call(ctx, "add_turn", session_id=sid, message=m) for m in messages]
    return sid, results


@pytest.mark.parametrize(
    "first",
    [
        "チームの稼働状況を見える化する仕組みが欲しい",
        "新しい社内イベントについてアイデアを出してくれる\uff1f",
        "Looking to set up a home lab for learning Kubernetes.",
        "The plan: move our docs to a wiki.",
        "Budget is $500.",
    ],
)
async def test_the_first_substantive_message_states_the_goal(ctx: Any, call: Any, first: str) -> None:
    _, (hello, result) = await _turns(call, ctx, "Hi!" if first.isascii() else "こんにちは", first)
    assert hello["classification"]["intent"] == ["UNCLEAR"] and hello["stored_as"] == []
    assert result["classification"]["intent"][0] == "PROBLEM_DEFINITION"
    mission = sections(result["prompt"])["Mission"]
    assert first in mission and "not stated yet" not in mission and "まだ示されていません" not in mission


@pytest.mark.parametrize(
    ("goal", "fact"),
    [
        ("I want to reorganise our on-call rotation.", "We have 12 people on the team."),
        ("店舗の在庫管理を改善したいです。", "対象は約200店舗です。"),
    ],
)
async def test_a_statement_of_fact_after_the_goal_is_kept(ctx: Any, call: Any, goal: str, fact: str) -> None:
    _, (_, result) = await _turns(call, ctx, goal, fact)
    assert result["classification"]["intent"] == ["CONSTRAINT_ADDITION"]
    assert f"- {fact}" in sections(result["prompt"])["Constraints"]


@pytest.mark.parametrize(
    "question",
    [
        "Is a login required for guests?",
        "Must the API be versioned?",
        "この項目って必須ですか\uff1f",
        "SSOは必須\uff1f",
    ],
)
async def test_a_question_is_never_a_constraint(ctx: Any, call: Any, question: str) -> None:
    goal = "I want to build a booking app." if question.isascii() else "予約アプリを作りたい。"
    _, (_, result) = await _turns(call, ctx, goal, question)
    assert result["classification"]["intent"] == ["QUESTION"] and result["stored_as"] == []
    assert question not in stated(result)


@pytest.mark.parametrize(
    ("goal", "old", "new"),
    [
        ("レポートを書く作業を手伝ってほしい。", "締切は金曜で", "締切、来週水曜に延ばせる\uff1f じゃあそれで"),
        ("We are rolling out a new chat tool.", "Cap it at 20 users.", "Let's allow 50 users after all."),
        ("We're building a landing page.", "Deadline is June 3.", "Scratch that, we now have until July 1."),
        (
            "I want to build a website for my bakery.",
            "The budget is under $3k.",
            "Actually, $5k is fine for the budget.",
        ),
    ],
)
async def test_a_new_value_for_the_same_attribute_replaces_the_old(
    ctx: Any, call: Any, goal: str, old: str, new: str
) -> None:
    sid, (*_, result) = await _turns(call, ctx, goal, old, new)
    assert result["superseded"] == [old] and result["classification"]["intent"][0] == "REFINEMENT"
    assert old not in stated(result) and new in stated(result)
    view = await call(ctx, "get_context", session_id=sid)
    (replaced,) = view["superseded"]
    assert replaced["replaced_by"] == new and replaced["superseded_by"] == view["evolving"][-1]["id"]
    assert replaced["replaced_reason"] and view["evolving"][-1]["label"] == "REFINEMENT"


@pytest.mark.parametrize(
    ("goal", "first", "second"),
    [
        ("I want to plan a team sprint.", "The sprint is one week long.", "Reviews happen twice a week."),
        ("Our team needs an on-call plan.", "We have 12 people on the team.", "Each shift lasts one week."),
        ("研修の計画を立てたい。", "研修期間は2週間です。", "申込期間は来週金曜までです。"),
        ("旅行の計画を立てたい。", "予算は10万円です。", "宿は駅の近くがいいです。"),
    ],
)
async def test_unrelated_constraints_stay(ctx: Any, call: Any, goal: str, first: str, second: str) -> None:
    _, (*_, result) = await _turns(call, ctx, goal, first, second)
    assert result["superseded"] == []
    assert first in stated(result) and second in stated(result)


async def test_a_refinement_of_the_goal_updates_the_mission(ctx: Any, call: Any) -> None:
    _, (*_, result) = await _turns(
        call,
        ctx,
        "I want to write a blog post about our product.",
        "It should be under 800 words.",
        "More specifically, it is about the new offline mode.",
    )
    assert result["classification"]["intent"] == ["REFINEMENT"]
    mission = sections(result["prompt"])["Mission"]
    assert "- I want to write a blog post about our product.\n  - More specifically" in mission


async def test_each_item_says_why_it_is_stored(ctx: Any, call: Any) -> None:
    sid, _ = await _turns(call, ctx, "来月の社員旅行を計画したい。予算は一人3万円です。", "行き先は温泉地がいい。")
    view = await call(ctx, "get_context", session_id=sid)
    (goal,) = view["core"]
    assert goal["label"] == "PROBLEM_DEFINITION" and "最初の実質的なメッセージ" in goal["reason"]
    # the goal's own sentence is kept among the conditions too (its date, 来月, can be replaced: round 30)
    kept = {item["text"]: item for item in view["evolving"]}
    assert set(kept) == {"来月の社員旅行を計画したい。", "予算は一人3万円です。", "行き先は温泉地がいい。"}
    budget, place = kept["予算は一人3万円です。"], kept["行き先は温泉地がいい。"]
    assert budget["label"] == "CONSTRAINT_ADDITION"
    assert place["label"] == "CONSTRAINT_ADDITION" and "質問ではない" in place["reason"]
