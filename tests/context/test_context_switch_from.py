"""Round 52: a move to another named thing that also names the one it leaves ("we're moving to Teams next month
because Slack got too expensive") replaces the stored statement naming the one left, not whichever statement the
same-attribute model ranks first; what else is stored stays. The phrasings are written for these tests and are in
neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play, stated

pytestmark = pytest.mark.anyio

SESSION = (
    "Can you help me write an onboarding guide for new volunteers at our food bank?",
    "Volunteers sign up through Slack at the moment.",
    "Shifts start on the first Saturday of each month.",
    "Heads up: we're moving to Teams next month because Slack got too expensive for us.",
)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    assert not set(SESSION) & every_known_text()


async def test_the_statement_naming_what_is_left_is_replaced(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, *SESSION)
    said = stated(last)
    assert "sign up through Slack" not in said and "moving to Teams" in said, last["prompt"]
    assert "first Saturday of each month" in said, last["prompt"]
