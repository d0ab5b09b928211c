"""Rewriting content: what stays, what moves, and the limits, checked against Notion's API description."""

from __future__ import annotations

from typing import Any

import pytest
from fake_notion import FakeNotion
from notion_seed import TOKEN, Call, Seed

from mcpist.modules import InvalidArgument
from mcpist.modules.notion import module
from mcpist.testing import FakeCredentials, FakeUpstream, tool_context

pytestmark = pytest.mark.anyio


def paragraphs(*texts: str) -> list[dict[str, Any]]:
    return [
        {"type": "paragraph", "paragraph": {"rich_text": [{"type": "text", "text": {"content": t}}]}} for t in texts
    ]


async def test_content_for_the_top_goes_before_the_first_block_by_remaking_it(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    blank = world.add_page("白紙")
    first, second = world.add_blocks(blank, paragraphs("一", "二"))
    result = await call(ctx, "update_page_content", page_id=blank, mode="replace", markdown="ゼロ\n\n一\n\n二")
    assert result == {"id": blank, "added": 2, "updated": 0, "deleted": 1}
    append = next(r for r in api.requests if r.method == "PATCH")
    assert append.json["after"] == first  # the API inserts only after a block
    assert world.tree(blank) == [("paragraph", "ゼロ"), ("paragraph", "一"), ("paragraph", "二")]
    assert world.live(blank)[2]["id"] == second


async def test_content_for_the_top_goes_after_a_first_block_that_cannot_be_remade(
    ctx: Any, call: Call, world: FakeNotion, seeded: Seed
) -> None:
    page = await call(ctx, "get_page", page_id=seeded.notes)
    child_line = page["content"]["text"].split("\n\n")[-1]
    world.children[seeded.notes].insert(0, world.children[seeded.notes].pop())  # the child page comes first
    markdown = f"冒頭\n\n{child_line}\n\n週次の定例です。\n\n- [議題](https://example.com/a)\n  - 予算"
    result = await call(ctx, "update_page_content", page_id=seeded.notes, mode="replace", markdown=markdown)
    assert result["notes"] == ["new content meant to go first went after the first block, which cannot be recreated"]
    assert [kind for kind, *_ in world.tree(seeded.notes)] == [
        "child_page",
        "paragraph",
        "paragraph",
        "bulleted_list_item",
    ]


async def test_a_page_too_large_to_read_whole_is_noted_and_not_rewritten(
    api: FakeUpstream, call: Call, world: FakeNotion, seeded: Seed
) -> None:
    big = world.add_page("大きなページ")
    world.add_blocks(big, paragraphs(*(f"段落{i}" for i in range(150))))
    ctx = tool_context(
        module, transport=api.transport(), credentials=FakeCredentials(TOKEN), settings={"max_blocks": 100}
    )
    page = await call(ctx, "get_page", page_id=big)
    assert page["notes"] == ["the page has more than 100 blocks; the content stops there"]
    assert page["content"]["text"].count("段落") == 100
    with pytest.raises(InvalidArgument, match="more than 100 blocks; edit it with get_block_children"):
        await call(ctx, "update_page_content", page_id=big, mode="find_replace", edits=[{"old": "段落1", "new": "x"}])
    with pytest.raises(InvalidArgument, match="too many to copy"):
        await call(ctx, "duplicate_page", page_id=big)


async def test_rewriting_with_the_same_markdown_changes_nothing(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    page = await call(ctx, "get_page", page_id=seeded.notes)
    result = await call(
        ctx, "update_page_content", page_id=seeded.notes, mode="replace", markdown=page["content"]["text"]
    )
    assert result == {"id": seeded.notes, "added": 0, "updated": 0, "deleted": 0}
    assert all(r.method == "GET" for r in api.requests)
