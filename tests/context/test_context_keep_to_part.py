"""Round 49: a request to keep the work to one part, said as the assistant being asked to focus ("we would ask you
to focus solely on the budget section"), as something asked for "only … to begin with / for now / as a pilot", or
as "we cover … only", narrows the mission instead of becoming a condition. A limit on when or how much ("I do
yoga on Mondays only", "we only have 5 days") stays a condition. The phrasings are written for these tests and are
in neither the training data nor the development sets. One that names what it turns from ("rather than the
fundraising results, let's focus on …") replaces the part it names."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _structure as st
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

KEEPS_TO_PART = [
    "For now we would ask you to focus solely on the budget section.",
    "We'd like you to concentrate on the opening chapter.",
    "The editor has asked for only the introduction to begin with.",
    "For today I think we cover the first two weeks of the course only.",
]
NOT_A_PART = [
    "I do yoga on Mondays only.",
    "We only have 5 days.",
    "We plan to travel in June, only if the flights are cheap.",
    "Focus groups are run by the council.",
]
SESSIONS = [
    (
        "I need help writing a funding bid for our village hall.",
        "The bid is limited to 2,000 words.",
        "For now we would ask you to focus solely on the budget section.",
        "the budget section",
    ),
    (
        "Could you help me plan an evening course in beginner Spanish?",
        "It runs for ten weeks on Thursday evenings.",
        "For today I think we cover the first two weeks of the course only.",
        "the first two weeks",
    ),
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    mine = {*KEEPS_TO_PART, *NOT_A_PART, *(m for row in SESSIONS for m in row[:3])}
    assert not mine & every_known_text()


@pytest.mark.parametrize("text", KEEPS_TO_PART)
def test_a_request_to_keep_to_one_part_narrows_the_scope(text: str) -> None:
    assert st.narrows_scope(text)


@pytest.mark.parametrize("text", NOT_A_PART)
def test_a_limit_on_when_or_how_much_is_no_part_of_the_work(text: str) -> None:
    assert not st.narrows_scope(text)


@pytest.mark.parametrize("session", SESSIONS, ids=["focus-solely", "cover-only"])
async def test_the_part_joins_the_mission_and_conditions_stay(ctx: Any, call: Any, session: tuple[str, ...]) -> None:
    goal, condition, part, said = session
    *_, last = await play(call, ctx, goal, condition, part)
    parts = sections(last["prompt"])
    assert said in parts["Mission"], last["prompt"]
    assert said not in parts["Constraints"], last["prompt"]
    assert condition.rstrip(".")[:20] in parts["Constraints"], last["prompt"]


async def test_a_part_named_as_turned_from_is_replaced_by_the_new_one(ctx: Any, call: Any) -> None:
    goal = "Help me prepare a short talk for our parents' association meeting."
    first = "We'd like you to focus solely on the fundraising results."
    then = "Rather than the fundraising results, let's focus on the playground plans."
    *_, last = await play(call, ctx, goal, first, then)
    said = sections(last["prompt"])["Mission"] + sections(last["prompt"])["Constraints"]
    assert "playground plans" in said and "fundraising results" not in said.replace(then, ""), last["prompt"]
