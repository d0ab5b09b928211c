"""Round 43: thanks in dialect and slang (「おおきに」, "ta", "arigato", "you're a star", "ur a lifesaver")
and a closing 「以上です」 are small talk, not a condition to keep; a sentence that also sets something is not.
The phrasings are written for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _features as f
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

THANKS = [
    "Ta, that's brilliant.",
    "cheers, you're a star",
    "ur a lifesaver honestly",
    "arigato gozaimasu!",
    "おおきに、ほな早速やってみるわ",
    "以上となります。",
]
NOT_THANKS = ["Put the totals in a table.", "ta-da, the draft is done", "ta, but keep it under £500"]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not {*THANKS, *NOT_THANKS} & every_known_text()


@pytest.mark.parametrize("text", THANKS)
def test_thanks_in_dialect_and_slang_are_small_talk(text: str) -> None:
    assert f.is_filler(text)


@pytest.mark.parametrize("text", NOT_THANKS)
def test_a_sentence_that_sets_something_is_no_thanks(text: str) -> None:
    assert not f.is_filler(text)


async def test_a_thank_you_in_dialect_is_not_kept_as_a_condition(ctx: Any, call: Any) -> None:
    goal, stalls = "町内会の夏祭りの屋台の段取りを考えたいです。", "屋台は5つ出します。"
    thanks = "おおきに、ほな早速やってみるわ"
    *_, last = await play(call, ctx, goal, stalls, thanks)
    assert last["classification"]["intent"] == ["UNCLEAR"], last["classification"]
    assert "おおきに" not in sections(last["prompt"])["Constraints"], last["prompt"]
