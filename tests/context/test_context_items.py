"""Correcting the store by hand: drop_item and pin_item."""

from __future__ import annotations

from typing import Any

import pytest

from mcpist.modules import InvalidArgument, NotFound
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio


async def _session(call: Any, ctx: Any, *messages: str) -> tuple[str, dict[str, Any]]:
    sid: str = (await call(ctx, "start_session"))["session_id"]
    result: dict[str, Any] = {}
    for message in messages:
        result = await call(ctx, "add_turn", session_id=sid, message=message)
    return sid, result


async def test_a_dropped_item_leaves_the_prompt_and_pinning_restores_it(ctx: Any, call: Any) -> None:
    sid, _ = await _session(call, ctx, "I want to plan a hiking trip.", "We are 4 people.", "No camping.")
    view = await call(ctx, "get_context", session_id=sid)
    people = next(i for i in view["evolving"] if i["text"] == "We are 4 people.")
    dropped = await call(ctx, "drop_item", session_id=sid, item_id=people["id"])
    assert "We are 4 people." not in sections(dropped["prompt"])["Constraints"]
    assert "No camping." in sections(dropped["prompt"])["Constraints"]
    assert dropped["item"]["id"] == people["id"]
    again = await call(ctx, "drop_item", session_id=sid, item_id=people["id"])
    assert again["prompt"] == dropped["prompt"]
    view = await call(ctx, "get_context", session_id=sid)
    assert [(i["text"], i["status"]) for i in view["superseded"]] == [("We are 4 people.", "dropped")]
    assert (await call(ctx, "get_prompt", session_id=sid))["prompt"] == dropped["prompt"]

    pinned = await call(ctx, "pin_item", session_id=sid, item_id=people["id"])
    assert pinned["item"]["status"] == "pinned" and "- We are 4 people." in pinned["prompt"]
    view = await call(ctx, "get_context", session_id=sid)
    assert view["superseded"] == [] and [i["status"] for i in view["evolving"]] == ["pinned", "active"]
    unpinned = await call(ctx, "pin_item", session_id=sid, item_id=people["id"], pinned=False)
    assert unpinned["item"]["status"] == "active" and "- We are 4 people." in unpinned["prompt"]


async def test_a_pinned_item_is_not_replaced(ctx: Any, call: Any) -> None:
    sid, _ = await _session(call, ctx, "I want to build a website for my bakery.", "The budget is under $3k.")
    view = await call(ctx, "get_context", session_id=sid)
    await call(ctx, "pin_item", session_id=sid, item_id=view["evolving"][0]["id"])
    result = await call(ctx, "add_turn", session_id=sid, message="Actually, $5k is fine for the budget.")
    assert result["superseded"] == []
    constraints = sections(result["prompt"])["Constraints"]
    assert "$3k" in constraints and "$5k" in constraints


async def test_pinning_a_replaced_item_restores_it(ctx: Any, call: Any) -> None:
    sid, _ = await _session(
        call, ctx, "I want to build a website for my bakery.", "The budget is under $3k.", "Actually, make it $5k."
    )
    view = await call(ctx, "get_context", session_id=sid)
    (old,) = view["superseded"]
    assert old["replaced_by"] == "Actually, make it $5k." and old["label"] == "CONSTRAINT_ADDITION"
    assert old["status"] == "replaced" and old["replaced_reason"].startswith("'Actually, make it $5k.' set the same")
    restored = await call(ctx, "pin_item", session_id=sid, item_id=old["id"])
    assert restored["item"].get("superseded_by") is None and restored["item"]["status"] == "pinned"
    assert "- The budget is under $3k." in restored["prompt"]
    assert (await call(ctx, "get_context", session_id=sid))["superseded"] == []


@pytest.mark.parametrize("tool", ["drop_item", "pin_item"])
async def test_item_ids_are_checked(make_ctx: Any, call: Any, tool: str) -> None:
    alice, bob = make_ctx("alice"), make_ctx("bob")
    sid, _ = await _session(call, alice, "I want to learn the cello.")
    item_id = (await call(alice, "get_context", session_id=sid))["core"][0]["id"]
    with pytest.raises(InvalidArgument, match="item_id"):
        await call(alice, tool, session_id=sid, item_id="not-an-id")
    with pytest.raises(NotFound, match="item_id") as missing:
        await call(alice, tool, session_id=sid, item_id="0" * 32)
    assert missing.value.data == {"field": "item_id"}
    with pytest.raises(NotFound, match="no such session"):
        await call(bob, tool, session_id=sid, item_id=item_id)
    other, _ = await _session(call, alice, "I want to learn the piano.")
    with pytest.raises(NotFound, match="item_id"):
        await call(alice, tool, session_id=other, item_id=item_id)
