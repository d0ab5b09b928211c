"""What the tests that use phrasings written for them share: the texts they must not be (training and
development data), a session played through `add_turn`, and what its prompt states."""

from __future__ import annotations

import functools
from typing import Any

from mcpist.modules.context import _corpus
from mcpist.modules.context._synth import sections


def known_texts(dev_authors: str) -> set[str]:
    """Every user turn of the training data and of the named development sets."""
    seen = {t.user for d in _corpus.dialogs() for t in d.turns} | {t.user for t in _corpus.single_turns()}
    seen |= {t.user for a in dev_authors for d in _corpus.dialogs(pattern=f"dev_{a}_*.txt") for t in d.turns}
    return seen


@functools.cache
def every_known_text() -> frozenset[str]:
    """`known_texts` of every development set there is (read once): a new set needs no test edited."""
    return frozenset(
        known_texts("".join(sorted({_corpus.author(d.source) for d in _corpus.dialogs(pattern="dev_*.txt")})))
    )


async def play(call: Any, ctx: Any, *messages: str) -> list[dict[str, Any]]:
    """The messages as one new session's turns; each turn's `add_turn` result."""
    sid: str = (await call(ctx, "start_session"))["session_id"]
    return [await call(ctx, "add_turn", session_id=sid, message=m) for m in messages]


def stated(result: dict[str, Any]) -> str:
    """What an `add_turn` result's prompt states the user wants: its mission and its constraints."""
    parts = sections(result["prompt"])
    return parts["Mission"] + parts["Constraints"]


async def assert_set_anew(
    call: Any, ctx: Any, goal: str, first: str, other: str, change: str, old: str, new: str
) -> None:
    """A goal, a condition `first` holding `old`, an unrelated condition `other`, then `change`: the prompt states
    `new` and not `old`, and `other` stays."""
    *_, last = await play(call, ctx, goal, first, other, change)
    said = stated(last)
    assert new in said and old not in said, last["prompt"]
    assert other.rstrip(".。")[:12] in said, last["prompt"]  # the unrelated condition stays
