"""Rounds 13 and 14: what matters most joins the mission, and requests the cue words misread. "Mostly the <part>" or
「…を軸に」 narrows the goal without a verb of wishing (and even beside a word of change meant for something
else), while "mostly" inside a statement of how things are stays a condition; a thank-you letter is no thanks,
「…を考えて」 is a request, a decision the user is torn on after some background states the goal; a sentence
built to say what matters most ("the key thing is …", "… is the real headache", "lead with …", 「肝心なのは…」)
narrows the goal even as a question or with a value, but "we start with 12 volunteers" does not. The phrasings
are written for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import known_texts, play

from mcpist.modules.context import _features as f
from mcpist.modules.context import _structure as st
from mcpist.modules.context import _wants as w
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

FOCUSED = [
    "mostly the part about the kitchen layout",
    "Mainly the evening routine, mornings are fine.",
    "and primarily the cover letter, tbh",
    "that's what the committee cares about: the costs",
    "操作性を軸に比べたいです",
    "一番は子どもの安全です",
]
FRAMED = [
    "the key thing for us is the seating plan",
    "Parking is the real headache.",
    "it's all about keeping the costs visible",
    "lead with the timeline, please",
    "can you start with the venue?",
    "Start with the first two chapters in detail",
    "肝心なのは予算の配分です",
    "ポイントは移動時間の短縮",
    "まずは会場探しから",
    "Could the report lead with the survey results?",
    "まずは最初の2週間の献立だけ考えたい",
    "新人研修は3日目の実習を中心に組みたい",
]
NOT_FRAMED = [
    "we start with 12 volunteers",
    "it's about 40 minutes by bus",
    "The meeting should focus on budgets.",
    "we can start with 12 volunteers",
    "最初の2週間は忙しい",
]
NOT_FOCUSED = [
    "deliveries mostly arrive on Fridays",
    "We sell mostly to cafes in Bristol.",
    "特に希望はないです",
]
SESSIONS = [
    (
        "I need to choose a laptop for my daughter's first year at university.",
        "Budget is about £700.",
        "She studies architecture, so some 3D work.",
        "honestly mostly the battery life, the budget could move a bit now",
        "mostly the battery life",
        "Budget is about £700",
    ),
    (
        "町内の防災訓練の計画を立てたいです。",
        "参加は例年80人くらいです。",
        "会場は小学校の体育館です。",
        "今年は高齢の方の避難を中心に考えたいです。",
        "高齢の方の避難を中心に",
        "参加は例年80人くらい",
    ),
]
FRAMED_SESSIONS = [
    (
        "We need a communication plan for the office move.",
        "About 60 staff are affected.",
        "can we concentrate on the first week after the move?",
        "concentrate on the first week after the move",
    ),
    (
        "新しい会計ソフトの導入計画を立てたい。",
        "利用者は経理の5人です。",
        "肝心なのは月末の締め処理を止めないことです。",
        "月末の締め処理を止めない",
    ),
]
OPENERS = [
    ("文化祭で協力してくれた保護者へのお礼状の文面を考えて", "対象は12家庭です。", "お礼状の文面"),
    (
        "Hello! I hope you can help me.",
        "I'm torn between renting a stall at the Sunday market or selling online first.",
        "renting a stall at the Sunday market or selling online",
    ),
    (
        "はじめまして、わたしはネパールから来ました。",
        "日本で運転免許を取るべきか、国際免許を使い続けるかで迷っています。",
        "日本で運転免許を取るべきか",
    ),
]


def test_none_of_these_phrasings_is_training_or_development_data() -> None:
    mine = {*FOCUSED, *NOT_FOCUSED, *FRAMED, *NOT_FRAMED}
    mine |= {m for rows in (SESSIONS, OPENERS, FRAMED_SESSIONS) for row in rows for m in row}
    assert not mine & known_texts("defghjln")


@pytest.mark.parametrize("text", FOCUSED)
def test_what_matters_most_narrows_the_goal(text: str) -> None:
    assert w.narrows_goal(text)


@pytest.mark.parametrize("text", FRAMED)
def test_a_sentence_built_to_say_what_matters_most_narrows_the_goal(text: str) -> None:
    assert w.narrows_goal(text)


@pytest.mark.parametrize("text", NOT_FRAMED)
def test_a_start_a_quantity_or_a_focus_of_something_else_does_not(text: str) -> None:
    assert not w.narrows_goal(text)


@pytest.mark.parametrize(("goal", "fact", "framed", "phrase"), FRAMED_SESSIONS)
async def test_a_framed_focus_joins_the_mission_even_as_a_question(
    ctx: Any, call: Any, goal: str, fact: str, framed: str, phrase: str
) -> None:
    *_, last = await play(call, ctx, goal, fact, framed)
    assert last["classification"]["intent"][0] == "REFINEMENT", last["classification"]
    parts = sections(last["prompt"])
    assert phrase in parts["Mission"]
    assert fact.rstrip("。.") in parts["Constraints"]


@pytest.mark.parametrize("text", NOT_FOCUSED)
def test_mostly_inside_a_statement_of_how_things_are_does_not(text: str) -> None:
    assert not w.narrows_goal(text)


def test_a_thank_you_letter_is_no_thanks_and_a_te_form_request_is_a_request() -> None:
    assert not f.is_filler("卒業生へのお礼状を書いて")
    assert f.is_filler("お礼が遅くなりました、本当にありがとうございました")
    assert not f.is_filler("Thanks, can you draft it now?")
    assert f.is_filler("I hope you can help me.")
    assert st.introduces_self("はじめまして、わたしはネパールから来ました。")


@pytest.mark.parametrize(("goal", "first", "second", "focus", "phrase", "kept"), SESSIONS)
async def test_a_focus_joins_the_mission_and_the_conditions_stay(
    ctx: Any, call: Any, goal: str, first: str, second: str, focus: str, phrase: str, kept: str
) -> None:
    *_, last = await play(call, ctx, goal, first, second, focus)
    assert last["classification"]["intent"][0] == "REFINEMENT"
    parts = sections(last["prompt"])
    assert phrase in parts["Mission"]
    assert kept in parts["Constraints"]


@pytest.mark.parametrize(("opening", "then", "phrase"), OPENERS)
async def test_the_request_after_an_opening_or_the_request_itself_states_the_goal(
    ctx: Any, call: Any, opening: str, then: str, phrase: str
) -> None:
    first, second = await play(call, ctx, opening, then)
    assert phrase in sections(second["prompt"])["Mission"], (first["classification"], second["classification"])
