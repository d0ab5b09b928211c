"""Round 44: greetings in other registers and in romaji ("hiya", "howdy", "konbanwa", 「おつかれ〜」「まいど」), with
a smiley (「(^^)」), are small talk; "hi!! quick one" and 「どうも!少し相談乗ってや」 only open the conversation.
None of them states the goal. The phrasings are written for these tests and are in neither the training data nor
the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _features as f
from mcpist.modules.context import _structure as st
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

GREETINGS = ["howdy!", "konnichiwa~", "おつかれさまでした〜", "まいどまいど〜", "こんばんは(^_^)"]
OPENERS = ["hey!! quick q", "どうも!少し相談乗ってや"]
GOAL = "I want to plan a vegetable patch for my back garden."


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {*GREETINGS, *OPENERS, GOAL} & every_known_text()


@pytest.mark.parametrize("text", GREETINGS)
def test_a_greeting_is_small_talk(text: str) -> None:
    assert f.is_filler(text)


@pytest.mark.parametrize("text", OPENERS)
def test_an_opener_only_opens_the_conversation(text: str) -> None:
    assert st.only_about_the_conversation(text)


@pytest.mark.parametrize("opener", ["konnichiwa~", "hey!! quick q"])
async def test_the_goal_is_the_message_after_the_opener(ctx: Any, call: Any, opener: str) -> None:
    first, last = await play(call, ctx, opener, GOAL)
    assert first["classification"]["intent"] == ["UNCLEAR"], first["classification"]
    mission = sections(last["prompt"])["Mission"]
    assert GOAL in mission and opener not in mission, last["prompt"]
