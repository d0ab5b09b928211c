"""A user cannot hold unbounded context sessions; others are unaffected, and ending or expiring one frees a place."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from mcpist.modules import ResourceExhausted
from mcpist.modules.context import ContextSettings

pytestmark = pytest.mark.anyio


async def test_sessions_per_user_are_bounded(make_ctx: Any, call: Any, clock: Any) -> None:
    settings = ContextSettings(max_sessions_per_user=3)
    mine, theirs = make_ctx("u1", settings=settings), make_ctx("u2", settings=settings)
    sids = [(await call(mine, "start_session"))["session_id"] for _ in range(3)]
    with pytest.raises(ResourceExhausted, match="max_sessions_per_user") as raised:
        await call(mine, "start_session")
    assert raised.value.data == {"setting": "max_sessions_per_user", "limit": 3}
    assert (await call(theirs, "start_session"))["session_id"]  # another user is unaffected

    await call(mine, "end_session", session_id=sids[0])
    assert (await call(mine, "start_session"))["session_id"]  # an ended one frees a place
    with pytest.raises(ResourceExhausted):
        await call(mine, "start_session")
    clock.advance(settings.idle_timeout + timedelta(seconds=1))
    assert (await call(mine, "start_session"))["session_id"]  # expired ones do too
