"""A goal's statement is said once in the prompt: in the mission, not again among the constraints, though it is
kept as a constraint too (so that a later value can replace what it set, and the mission then masks that value).
And 「一人暮らし」「二人旅」 say how someone lives or travels, not how many take part. The phrasings are written for
these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _features as f
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

GOAL = "I need a rota for the 14 volunteers at our repair café."
OTHER = "Sessions run on the first Saturday of each month."
CHANGE = "Actually two dropped out, so 12 volunteers."


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {GOAL, OTHER, CHANGE} & every_known_text()


async def test_a_goal_with_a_value_is_not_repeated_among_the_constraints(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, GOAL, OTHER)
    parts = sections(last["prompt"])
    assert GOAL in parts["Mission"], last["prompt"]
    assert GOAL not in parts["Constraints"] and OTHER in parts["Constraints"], last["prompt"]
    context = await call(ctx, "get_context", session_id=last["session_id"])
    assert any(item["text"] == GOAL for item in context["evolving"]), context  # still stored


async def test_the_value_it_set_is_masked_in_the_mission_once_replaced(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, GOAL, OTHER, CHANGE)
    parts = sections(last["prompt"])
    assert "14 volunteers" not in parts["Mission"] + parts["Constraints"], last["prompt"]
    assert CHANGE in parts["Constraints"], last["prompt"]


@pytest.mark.parametrize("text", ["一人暮らしの祖母の見守りを考えたい", "二人旅の計画です", "一人っ子です"])
def test_living_alone_is_no_count(text: str) -> None:
    assert f.values_of(text) == ()


def test_one_person_taking_part_is_a_count() -> None:
    assert [(v.kind, v.text) for v in f.values_of("参加は一人です")] == [("count", "一人")]
