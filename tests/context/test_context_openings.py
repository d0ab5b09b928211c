"""Rounds 12 and 17: what comes before the goal. A greeting with an emoji, a salutation, "got a sec?", a header
before notes and an introduction by team, role or place ("I am site engineer at ...", 「経理課の者です」,
"hello from the front desk") are not the goal: the message that says what the user wants is. The phrasings
are written for these tests and are in neither the training data nor the development sets. Someone else's wish
("my nephew wants to be a pilot", 「妹が「留学したい」って言ってて」) is background, so the user's own wish after it
states the goal; a closing with the name under it is filler."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import known_texts, play

from mcpist.modules.context import _features as f
from mcpist.modules.context import _structure as st
from mcpist.modules.context import _wants as w
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

FILLERS = [
    "evening all 🌙",
    "hey 👋👋",
    "Dear Mr. Okafor,",
    "Hope this email finds you well.",
    "have you got a minute?",
    "Notes from Tuesday's planning call:",
    "memo",
    "お世話になります\uff01",
    "ちょっと質問いいですか\uff1f",
    "今大丈夫ですか",
    "先週の定例の議事録です",
    "Kind regards,\nPriya Nair",
    "Best, Jonas",
    "夜分遅くに失礼します。",
]
THIRD_PARTY = [
    "my nephew wants to be a pilot these days",
    "Our neighbour is lovely but she wants the fence painted green.",
    "妹が「留学したい」って言ってて",
]
ASKED_OF_ME = ["my manager needs me to cut the report to two pages", "I want a calmer morning routine"]
THEIR_WISH_THEN_MINE = [  # a decision joins a goal that only gave background (a wish would start a new one anyway)
    ("my nephew wants to be a pilot these days", "Torn between a model kit and a trial flight."),
    ("妹が「留学したい」って言ってて", "語学学校か交換留学かで迷ってます。"),
]
NOT_FILLERS = [
    "evening classes only 🌙",
    "Dear team, we need a plan for Q3",
    "memo: budget is 5k",
    "議事録を要約したい",
    "hey, the venue is booked for the 9th 👍",
    "Best price wins",
    "minutes of the last meeting say we have 500 pounds",
]
INTRODUCTIONS = [
    "Hello, I am site engineer for a bridge builder near Gdansk.",
    "Hi there! I've just joined the finance team.",
    "hello from the front desk of a small hostel 🙂",
    "Hi, night shift supervisor at a parcel depot here.",
    "I write from a community library in Porto.",
    "経理課の者です。",
    "総務部の高橋です。",
    "区役所の職員でございます。",
    "駅前で花屋やってます",
    "保育園で栄養士をしている森です。",
]
NOT_INTRODUCTIONS = [
    "I'm a designer, my client wants a new logo for her bakery.",
    "I am stuck on the wiring of the headlight.",
    "Hi there, I need help planning a trip",
    "I am looking for a cheaper phone plan.",
    "引っ越しの準備をしています、何から始めればいい\uff1f",
]
OPENED = [
    (
        "Hi, shift lead at a bakery here 🥐",
        "I need a cleaning rota for the ovens and the mixers.",
        "We are 5 people on the early shift.",
    ),
    (
        "お疲れさまです、物流センターの者です",
        "フォークリフトの点検表を作りたいです。",
        "台数は6台です。",
    ),
    (
        "Dear colleague,\nHope this note finds you well.",
        "We want to set up a mentoring scheme for new lab members.",
        "There are 9 new members this year.",
    ),
]


def test_none_of_these_phrasings_is_training_or_development_data() -> None:
    mine = {*FILLERS, *NOT_FILLERS, *INTRODUCTIONS, *NOT_INTRODUCTIONS, *THIRD_PARTY, *ASKED_OF_ME}
    mine |= {m for rows in (OPENED, THEIR_WISH_THEN_MINE) for row in rows for m in row}
    assert not mine & known_texts("defghijklmno")


@pytest.mark.parametrize("text", FILLERS)
def test_a_greeting_salutation_or_header_is_filler(text: str) -> None:
    assert f.is_filler(text)


@pytest.mark.parametrize("text", NOT_FILLERS)
def test_a_message_that_says_something_beside_the_greeting_is_no_filler(text: str) -> None:
    assert not f.is_filler(text)


@pytest.mark.parametrize("text", INTRODUCTIONS)
def test_an_introduction_by_team_role_or_place_introduces_the_user(text: str) -> None:
    assert st.introduces_self(text)


@pytest.mark.parametrize("text", NOT_INTRODUCTIONS)
def test_a_problem_a_wish_or_a_question_is_no_introduction(text: str) -> None:
    assert not st.introduces_self(text)


@pytest.mark.parametrize(("opening", "goal", "fact"), OPENED)
async def test_the_message_after_the_opening_states_the_goal(
    ctx: Any, call: Any, opening: str, goal: str, fact: str
) -> None:
    first, second, third = await play(call, ctx, opening, goal, fact)
    assert first["classification"]["intent"] == ["UNCLEAR"], first
    assert second["classification"]["intent"][0] == "PROBLEM_DEFINITION", second
    parts = sections(third["prompt"])
    assert goal.rstrip("。.") in parts["Mission"]
    assert opening.splitlines()[0] not in parts["Mission"]
    assert fact.rstrip("。.") in parts["Constraints"]


def test_a_choice_between_two_is_a_decision() -> None:
    assert st.asks_for_help("Can't decide between the blue one or the green one")
    assert st.asks_for_help("引っ越し先を駅近か郊外かで悩んでいます")
    assert not st.asks_for_help("We picked the blue one.")


@pytest.mark.parametrize("text", THIRD_PARTY)
def test_someone_elses_wish_is_no_wish_of_the_user(text: str) -> None:
    assert not w.states_wish(text)


@pytest.mark.parametrize("text", ASKED_OF_ME)
def test_a_wish_asked_of_the_user_or_their_own_is_one(text: str) -> None:
    assert w.states_wish(text)


@pytest.mark.parametrize(("theirs", "mine"), THEIR_WISH_THEN_MINE)
async def test_after_someone_elses_wish_the_users_own_states_the_goal(
    ctx: Any, call: Any, theirs: str, mine: str
) -> None:
    _, second = await play(call, ctx, theirs, mine)
    assert second["classification"]["intent"][0] == "PROBLEM_DEFINITION", second["classification"]
    assert mine.rstrip("。.") in sections(second["prompt"])["Mission"]
    assert st.asks_for_help(mine)
