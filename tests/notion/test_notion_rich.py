"""Writing every kind of content through the API and reading it back.

Notion's API description documents only paragraph and bulleted-list blocks with plain text for writes,
so these tests use the fake workspace's handlers without the description's checks
(`unchecked_transport`); the block shapes sent are those of Notion's block reference.
"""

from __future__ import annotations

from typing import Any

import pytest
from blocks_catalog import PAGE, catalog
from fake_notion import FakeNotion
from notion_seed import Call, Seed, seed

from mcpist.modules import InvalidArgument
from mcpist.modules.notion import module
from mcpist.modules.notion.markdown import blocks_to_markdown
from mcpist.testing import FakeCredentials, tool_context

pytestmark = pytest.mark.anyio
NOT_CREATABLE = {
    "child_page", "child_database", "link_preview", "unsupported", "template", "ai_block_unknown",
    "synced_block_copy", "image_hosted",
}  # fmt: skip


@pytest.fixture
def rich_world() -> tuple[FakeNotion, Seed, Any]:
    world = FakeNotion()
    seeded = seed(world)
    return world, seeded, tool_context(module, transport=world.unchecked_transport(), credentials=FakeCredentials("t"))


async def test_markdown_of_every_creatable_block_reads_back_unchanged(call: Call, rich_world: Any) -> None:
    world, seeded, ctx = rich_world
    world.objects[PAGE] = {**world.objects[seeded.notes], "id": PAGE}  # the page a mention names
    blocks = [block for name, block in catalog().items() if name not in NOT_CREATABLE]
    markdown = blocks_to_markdown(blocks)
    created = await call(ctx, "create_page", parent_page_id=seeded.home, title="全部入り", content=markdown)
    assert "notes" not in created
    page = await call(ctx, "get_page", page_id=created["id"], max_chars=200_000)
    assert page["content"]["text"] == markdown


async def test_content_only_markdown_shows_is_noted_when_it_cannot_be_recreated(call: Call, rich_world: Any) -> None:
    world, seeded, ctx = rich_world
    world.add_blocks(
        seeded.notes,
        [catalog()["image_hosted"]["image"] and {"type": "image", "image": catalog()["image_hosted"]["image"]}],
    )
    result = await call(ctx, "duplicate_page", page_id=seeded.notes, parent_page_id=seeded.home)
    assert result["notes"] == [
        "child pages and databases were linked (link_to_page), not copied: create pages with create_page",
        "Notion-hosted files were linked by their temporary URL, which expires within hours",
    ]
    copy = world.tree(result["id"])
    assert [kind for kind, *_ in copy] == ["paragraph", "bulleted_list_item", "link_to_page", "image"]


async def test_replacing_content_edits_in_place_what_it_can(call: Call, rich_world: Any) -> None:
    world, seeded, ctx = rich_world
    markdown = (
        "# 見出し\n\n<details><summary>詳細</summary>\n  一つ目\n\n  二つ目\n</details>\n\n"
        "| 品目 | 値段 |\n| --- | --- |\n| りんご | 100円 |\n| みかん | 80円 |"
    )
    created = await call(ctx, "create_page", parent_page_id=seeded.home, title="編集", content=markdown)
    pid = created["id"]
    heading, toggle, table = world.children[pid]
    rows = list(world.children[table])
    edited = (
        "最初に挿入\n\n## 見出し\n\n<details><summary>詳細</summary>\n  一つ目\n\n  二つ目（改）\n</details>\n\n"  # noqa: RUF001
        "| 品目 | 値段 |\n| --- | --- |\n| りんご | 120円 |\n| みかん | 80円 |"
    )
    result = await call(ctx, "update_page_content", page_id=pid, mode="replace", markdown=edited)
    # a new paragraph and a heading remade (a block's type cannot change); one toggle child and one row edited
    assert result == {"id": pid, "added": 2, "updated": 2, "deleted": 1}
    after = [block["id"] for block in world.live(pid)]
    assert after[2:] == [toggle, table] and world.children[table] == rows  # the same toggle, table and rows
    assert [world.blocks[b]["type"] for b in after[:2]] == ["paragraph", "heading_2"] and heading not in after
    page = await call(ctx, "get_page", page_id=pid)
    assert page["content"]["text"] == edited


async def test_columns_with_nested_content_and_long_tables_are_written_whole(call: Call, rich_world: Any) -> None:
    _, seeded, ctx = rich_world
    rows = "\n".join(f"| {i} | 行{i} |" for i in range(130))
    markdown = (
        "<columns>\n  <column>\n    - 左\n      - 左の子\n  </column>\n\n"
        "  <column>\n    右\n  </column>\n</columns>\n\n"
        f"| 番号 | 名前 |\n| --- | --- |\n{rows}"
    )
    created = await call(ctx, "create_page", parent_page_id=seeded.home, title="列と表", content=markdown)
    page = await call(ctx, "get_page", page_id=created["id"], max_chars=200_000)
    assert page["content"]["text"] == markdown
    assert created["added"] == 2 + 2 + 3 + 131


async def test_a_synced_copy_is_kept_and_never_written_into(call: Call, rich_world: Any) -> None:
    world, seeded, ctx = rich_world
    copy = catalog()["synced_block_copy"]
    world.add_blocks(
        seeded.notes, [{"type": "synced_block", "synced_block": {"synced_from": copy["synced_block"]["synced_from"]}}]
    )
    world.add_blocks(
        world.children[seeded.notes][-1],
        [{"type": "paragraph", "paragraph": {"rich_text": [{"type": "text", "text": {"content": "元"}}]}}],
    )
    page = await call(ctx, "get_page", page_id=seeded.notes)
    edited = page["content"]["text"].replace("週次の定例です。", "変更")
    result = await call(ctx, "update_page_content", page_id=seeded.notes, mode="replace", markdown=edited)
    assert result == {"id": seeded.notes, "added": 0, "updated": 1, "deleted": 0}


async def test_find_replace_must_match_exactly_once_unless_told(call: Call, rich_world: Any) -> None:
    world, seeded, ctx = rich_world
    await call(ctx, "append_blocks", block_id=seeded.notes, markdown="- 予算\n- 予算")
    with pytest.raises(InvalidArgument, match=r"occurs 3 times; make it longer or set replace_all"):
        await call(
            ctx,
            "update_page_content",
            page_id=seeded.notes,
            mode="find_replace",
            edits=[{"old": "予算", "new": "費用"}],
        )
    result = await call(ctx, "update_page_content", page_id=seeded.notes, mode="find_replace",
                        edits=[{"old": "予算", "new": "費用", "replace_all": True}])  # fmt: skip
    assert result["updated"] == 3 and "予算" not in str(world.tree(seeded.notes))


async def test_a_column_added_to_a_column_list_is_written_with_its_content(call: Call, rich_world: Any) -> None:
    world, seeded, ctx = rich_world
    two = "<columns>\n  <column>\n    左\n  </column>\n\n  <column>\n    右\n  </column>\n</columns>"
    created = await call(ctx, "create_page", parent_page_id=seeded.home, title="段組み", content=two)
    (columns,) = world.children[created["id"]]
    three = two.replace("</columns>", "\n  <column>\n    - 新しい列\n      - その子\n  </column>\n</columns>")
    result = await call(ctx, "update_page_content", page_id=created["id"], mode="replace", markdown=three)
    assert result == {"id": created["id"], "added": 3, "updated": 0, "deleted": 0}
    assert [b["id"] for b in world.live(created["id"])] == [columns]
    page = await call(ctx, "get_page", page_id=created["id"])
    assert page["content"]["text"] == three
