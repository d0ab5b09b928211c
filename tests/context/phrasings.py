"""What the tests that use phrasings written for them share: the texts they must not be (training and
development data) and a session played through `add_turn`."""

from __future__ import annotations

import functools
from typing import Any

from mcpist.modules.context import _corpus


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
