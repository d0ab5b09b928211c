"""Rounds 9 and 10: a request to keep the work to one part of the goal joins the mission, a request for help
after a self-introduction states the goal, the cue words no longer read a past copula, an honorific or "right
now" as a change, and a replacement is found by a name turned down, a condition lifted or the only value of
its kind. The phrasings are written for these tests and are in neither the training data nor the
development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import known_texts, play

from mcpist.modules.context import _features as f
from mcpist.modules.context import _naming as nm
from mcpist.modules.context import _structure as st
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

SCOPED = [
    (
        "I need to plan the whole renovation of our attic.",
        "The budget is about $9,000.",
        "The roof was redone last year.",
        "wait, the builder handles the structure, so just the insulation and lighting then",
    ),
    (
        "卒業論文の構成を考えたい。",
        "テーマは地方の空き家問題。",
        "締切は1月10日。",
        "とりあえず序章の見出しだけ先に決めよ",
    ),
]
INTRODUCED = [
    ("Hello, I'm from Poland and I've lived in Ireland for two years.", "Should I rent or buy an apartment in Dublin?"),
    (
        "Hello, I'm a retired bus driver from Cardiff, and for the last three years I have been restoring a 1968 "
        "Vespa in my garage at weekends.",
        "Can you help me figure out a wiring plan for the headlight?",
    ),
]
NOT_SCOPE = [
    "We only have 5 days.",
    "let's only invite 10 people",
    "please only use free tools",
    "I can only do mornings",
    "No projector in the hall, just a whiteboard.",
    "They have just announced a cap of 90,000 instead.",
    "日本語だけでお願いします",
    "2日だけお願いします",
    "平日の夜だけ練習できる",
]


def test_none_of_these_phrasings_is_training_or_development_data() -> None:
    mine = {m for rows in (SCOPED, INTRODUCED, LIFTED, CHANGED_VALUES) for row in rows for m in row} | set(NOT_SCOPE)
    assert not mine & known_texts("defghi")


def test_a_scope_request_is_told_from_a_limit_on_a_quantity_or_a_tool() -> None:
    for *_, text in SCOPED:
        assert st.narrows_scope(text), text
    assert st.narrows_scope("Actually, can we just focus on the insulation part first?")
    assert st.narrows_scope("やっぱり、当日のボランティアのシフト表だけ先に一緒に考えてください。")
    for text in NOT_SCOPE:
        assert not st.narrows_scope(text), text


@pytest.mark.parametrize(("goal", "condition", "fact", "scope"), SCOPED)
async def test_a_request_to_keep_to_one_part_of_the_goal_joins_the_mission(
    ctx: Any, call: Any, goal: str, condition: str, fact: str, scope: str
) -> None:
    *_, last = await play(call, ctx, goal, condition, fact, scope)
    parts = sections(last["prompt"])
    # under the goal in the mission, though said as a change and as a question; it replaces nothing
    assert f"  - {scope}" in parts["Mission"] and scope not in parts["Constraints"]
    assert condition in parts["Constraints"] and fact in parts["Constraints"]
    assert last["classification"]["intent"][0] == "REFINEMENT"


@pytest.mark.parametrize(("intro", "ask"), INTRODUCED)
async def test_after_a_self_introduction_the_first_request_for_help_states_the_goal(
    ctx: Any, call: Any, intro: str, ask: str
) -> None:
    assert st.introduces_self(intro) and st.asks_for_help(ask)
    _, second = await play(call, ctx, intro, ask)
    assert second["classification"]["intent"][0] == "PROBLEM_DEFINITION"
    assert ask in sections(second["prompt"])["Mission"]


async def test_a_question_after_a_goal_that_wishes_stays_a_question(ctx: Any, call: Any) -> None:
    # "should I ..." asks for help with a decision, but the goal was stated already
    _, second = await play(call, ctx, "I want to repaint the kitchen cabinets.", "Should I sand them or use a primer?")
    assert second["classification"]["intent"] == ["QUESTION"]
    assert "sand them" not in sections(second["prompt"])["Mission"]


def test_a_past_copula_an_honorific_or_right_now_is_no_change() -> None:
    for text in ["今年度の寄付総額は412万円でした。", "寄付者は個人の方が中心です。", "We have 6 engineers right now."]:
        assert f.cue(f.CHANGE, text) is None and f.cue(f.REVISION, text) is None, text
    for text in ["訪問は土曜のほうがいいです", "会場は公民館にします。", "We have 8 engineers now."]:
        assert f.cue(f.CHANGE, text) is not None, text
    # an apology before a past fact corrects it
    assert f.cue(f.REVISION, "すみません、数えたら参加者は28人でした。") is not None


def test_a_thing_turned_down_by_name_is_what_is_replaced() -> None:
    assert nm.rejected_names("Jekyll got vetoed by the design team.", "en") == ["jekyll"]
    assert "wordpress" in nm.rejected_names("ok so WordPress is off the table now", "en")
    assert "gravel" in nm.rejected_names("forget the gravel idea, the council said no", "en")
    assert nm.rejected_names("キャンプ場案は却下になりました", "ja") == ["キャンプ場案"]
    # "out" after a person or "out of", and a phrasal "check it out", name nothing
    for text in ["We are out of budget ideas", "I checked it out yesterday", "they're out on Friday"]:
        assert nm.rejected_names(text, "en") == [], text


async def test_the_stored_statement_a_rejection_names_is_replaced_and_the_others_stay(ctx: Any, call: Any) -> None:
    *_, last = await play(
        call,
        ctx,
        "I want to set up a small blog for our hiking club.",
        "We were thinking of hosting it with Jekyll on GitHub Pages.",
        "About 40 members would post.",
        "Jekyll got vetoed by the design team.",
    )
    constraints = sections(last["prompt"])["Constraints"]
    assert "Jekyll on GitHub Pages" not in constraints and "About 40 members" in constraints
    assert last["classification"]["intent"][0] == "REFINEMENT"


LIFTED = [
    (
        "I need a reading list to get into machine learning.",
        "Only free resources, please.",
        "I have about 5 hours a week.",
        "my employer will reimburse courses, so the free resources rule doesn't apply anymore",
        "Only free resources",
        "5 hours a week",
    ),
    (
        "自治会の防災訓練の案内文を作りたいです。",
        "文字数は400字以内でお願いします。",
        "対象は高齢の方が多いです。",
        "回覧板に別紙で付けられるので、文字数の制限はなくて大丈夫です。",
        "400字以内",
        "高齢の方",
    ),
]


@pytest.mark.parametrize(("goal", "limit", "fact", "lift", "gone", "kept"), LIFTED)
async def test_a_lifted_condition_replaces_the_one_it_lifts(
    ctx: Any, call: Any, goal: str, limit: str, fact: str, lift: str, gone: str, kept: str
) -> None:
    assert nm.REMOVAL.search(f.normalize(lift))
    *_, last = await play(call, ctx, goal, limit, fact, lift)
    constraints = sections(last["prompt"])["Constraints"]
    assert gone not in constraints and kept in constraints


async def test_a_lifted_condition_that_shares_no_word_with_any_stored_one_lifts_nothing(ctx: Any, call: Any) -> None:
    # "price" is not "free": the pair model alone would pick the hours; a lift must name what it lifts
    *_, last = await play(call, ctx, *LIFTED[0][:3], "my employer will reimburse courses, so price doesn't matter now")
    assert "5 hours a week" in sections(last["prompt"])["Constraints"]


CHANGED_VALUES = [
    (
        "I want to write a welcome pack for our photography club.",
        "Each member chips in £40 a year for the studio.",
        "We meet on the first Sunday of each month.",
        "About 30 members.",
        "Good news, the council grant means we can go down to £25.",
        "£40 a year",
    ),
    (
        "Help me plan our band's spring tour.",
        "We can spend $3,000 on the van and gas.",
        "Eight shows in three weeks.",
        "Four of us in the band.",
        "The label is covering more now, so it's $4,500.",
        "$3,000",
    ),
]


@pytest.mark.parametrize(("goal", "amount", "when", "count", "change", "old"), CHANGED_VALUES)
async def test_a_change_of_value_replaces_the_only_statement_with_a_value_of_its_kind(
    ctx: Any, call: Any, goal: str, amount: str, when: str, count: str, change: str, old: str
) -> None:
    # the model is unsure which statement the new amount sets; only one states an amount
    *_, last = await play(call, ctx, goal, amount, when, count, change)
    constraints = sections(last["prompt"])["Constraints"]
    assert old not in constraints and change in constraints
    assert when in constraints and count in constraints


async def test_a_message_that_only_says_who_the_user_is_is_background_not_the_goal(ctx: Any, call: Any) -> None:
    intro, first, goal = await play(
        call,
        ctx,
        "Hi! I'm a sous-chef at a hotel restaurant in Leeds.",
        "I need a two-week meal plan for my own days off.",
        "No fish, please.",
    )
    assert intro["classification"]["intent"] == ["UNCLEAR"] and intro["stored_as"] == ["evolving"]
    assert first["classification"]["intent"][0] == "PROBLEM_DEFINITION"
    parts = sections(goal["prompt"])
    assert "two-week meal plan" in parts["Mission"] and "sous-chef" not in parts["Mission"]
    assert "sous-chef at a hotel restaurant" in parts["Constraints"]  # the answer still knows who asks
    view = await call(ctx, "get_context", session_id=intro["session_id"])
    (background,) = [item for item in view["evolving"] if "sous-chef" in item["text"]]
    assert background["label"] == "UNCLEAR" and "self-introduction" in background["reason"]
    ja = await play(
        call, ctx, "はじめまして。市の図書館で司書をしております。", "子ども向けの読書会の企画を考えたいです。"
    )
    assert ja[0]["classification"]["intent"] == ["UNCLEAR"]
    assert "読書会の企画" in sections(ja[1]["prompt"])["Mission"]


async def test_an_introduction_that_goes_on_to_the_goal_is_the_goal(ctx: Any, call: Any) -> None:
    (first,) = await play(
        call,
        ctx,
        "I teach year 4 and our head has put me in charge of the school garden, so I have to sort out what the "
        "children grow over the spring term.",
    )
    assert first["classification"]["intent"][0] == "PROBLEM_DEFINITION"
    assert "school garden" in sections(first["prompt"])["Mission"]


async def test_a_question_in_the_goal_message_is_no_condition_a_later_value_can_mask(ctx: Any, call: Any) -> None:
    *_, last = await play(
        call,
        ctx,
        "Should I offer free delivery? I bake sourdough and sell it through a small website.",
        "Most orders are about £22.",
        "I'm leaning towards free over £35.",
        "Actually let's make it over £40.",
    )
    assert "Should I offer free delivery?" in sections(last["prompt"])["Mission"]
