"""Contract tests of the writing tools, checked against Notion's API description.

The description documents only paragraph and bulleted-list blocks with plain text and links for writes,
so content here keeps to those; test_notion_rich.py writes everything else.
"""

from __future__ import annotations

from typing import Any

import pytest
from fake_notion import FakeNotion
from notion_seed import Call, Seed
from notion_world import ME

from mcpist.modules import InvalidArgument
from mcpist.testing import FakeUpstream

pytestmark = pytest.mark.anyio


def text(content: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": {"content": content}}]


async def test_create_page_under_a_page_writes_markdown_level_by_level(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    markdown = "最初の段落。\n\n- 親項目\n  - 子項目 [リンク](https://example.com)\n- 次の項目"
    result = await call(ctx, "create_page", parent_page_id=seeded.home, title="新しいページ", content=markdown)
    page_id = result["id"]
    assert result == {"id": page_id, "url": f"https://www.notion.so/{page_id.replace('-', '')}", "added": 4}
    create, level1, level2 = api.requests
    assert (create.method, create.path) == ("POST", "/v1/pages")
    assert create.json == {
        "parent": {"type": "page_id", "page_id": seeded.home},
        "properties": {"title": {"title": text("新しいページ")}},
    }
    assert level1.path == f"/v1/blocks/{page_id}/children"
    assert level1.json == {
        "children": [
            {"type": "paragraph", "paragraph": {"rich_text": text("最初の段落。")}},
            {"type": "bulleted_list_item", "bulleted_list_item": {"rich_text": text("親項目")}},
            {"type": "bulleted_list_item", "bulleted_list_item": {"rich_text": text("次の項目")}},
        ]
    }
    parent_item = world.children[page_id][1]
    assert level2.path == f"/v1/blocks/{parent_item}/children"
    link = {"type": "text", "text": {"content": "リンク", "link": {"url": "https://example.com"}}}
    assert level2.json == {
        "children": [{"type": "bulleted_list_item", "bulleted_list_item": {"rich_text": [*text("子項目 "), link]}}]
    }
    assert world.tree(page_id) == [
        ("paragraph", "最初の段落。"),
        ("bulleted_list_item", "親項目", [("bulleted_list_item", "子項目 リンク")]),
        ("bulleted_list_item", "次の項目"),
    ]


async def test_create_page_in_a_data_source_types_plain_values_by_its_schema(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    result = await call(
        ctx,
        "create_page",
        data_source_id=seeded.tasks,
        title="報告書を書く",
        properties={
            "Status": "未着手",
            "Due": "2025-10-01T09:00:00+09:00/2025-10-03",
            "Tags": ["仕事", "急ぎ"],
            "Points": 2.5,
            "Owner": [f"山田 花子 <{ME}>"],
            "Done": False,
        },
    )
    get_source, create = api.requests
    assert get_source.path == f"/v1/data_sources/{seeded.tasks}"
    assert create.json["parent"] == {"type": "database_id", "database_id": seeded.tasks_db}
    assert create.json["properties"] == {
        "Status": {"status": {"name": "未着手"}},
        "Due": {"date": {"start": "2025-10-01T09:00:00+09:00", "end": "2025-10-03"}},
        "Tags": {"multi_select": [{"name": "仕事"}, {"name": "急ぎ"}]},
        "Points": {"number": 2.5},
        "Owner": {"people": [{"id": ME}]},
        "Done": {"checkbox": False},
        "名前": {"title": text("報告書を書く")},
    }
    row = await call(ctx, "get_page", page_id=result["id"], content=False)
    assert row["parent"] == f"data_source:{seeded.tasks}" and row["properties"]["Tags"] == ["仕事", "急ぎ"]


async def test_property_values_that_cannot_be_set_are_refused_before_any_write(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    with pytest.raises(InvalidArgument, match=r"Score.*formula property that Notion computes"):
        await call(ctx, "create_page", data_source_id=seeded.tasks, title="x", properties={"Score": 3})
    with pytest.raises(InvalidArgument, match=r"no property 'Priority' \(properties: Done, Due"):
        await call(ctx, "update_page_properties", page_id=seeded.rows[0], properties={"Priority": "高"})
    with pytest.raises(InvalidArgument, match="only a title"):
        await call(ctx, "create_page", parent_page_id=seeded.home, title="x", properties={"Status": "完了"})
    with pytest.raises(InvalidArgument, match="one of parent_page_id and data_source_id"):
        await call(ctx, "create_page", title="x")
    assert all(r.method == "GET" for r in api.requests)


async def test_update_page_properties_patches_values_title_and_icon(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    result = await call(
        ctx,
        "update_page_properties",
        page_id=seeded.rows[0],
        properties={"title": "見積もりを送った", "Status": "完了", "Done": True, "Due": None},
        icon="✅",
    )
    patch = api.requests[-1]
    assert (patch.method, patch.path) == ("PATCH", f"/v1/pages/{seeded.rows[0]}")
    assert patch.json == {
        "properties": {
            "名前": {"title": text("見積もりを送った")},
            "Status": {"status": {"name": "完了"}},
            "Done": {"checkbox": True},
            "Due": {"date": None},
        },
        "icon": {"emoji": "✅"},
    }
    assert result["title"] == "見積もりを送った" and result["icon"] == "✅"
    assert result["properties"]["Status"] == "完了" and result["properties"]["Due"] is None


async def test_append_blocks_chunks_at_100_and_splits_text_at_2000(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    markdown = "\n\n".join(f"段落 {i}" for i in range(250)) + "\n\n" + "あ" * 4500
    result = await call(ctx, "append_blocks", block_id=seeded.home, markdown=markdown)
    assert result["added"] == 251
    appends = [r for r in api.requests if r.method == "PATCH"]
    assert [len(r.json["children"]) for r in appends] == [100, 100, 51]
    assert "after" not in appends[0].json and appends[1].json["after"] == world.children[seeded.home][-152]
    long_text = appends[2].json["children"][-1]["paragraph"]["rich_text"]
    assert [len(item["text"]["content"]) for item in long_text] == [2000, 2000, 500]
    texts = [t for kind, t in world.tree(seeded.home) if kind == "paragraph"]
    assert texts == [f"段落 {i}" for i in range(250)] + ["あ" * 4500]


async def test_append_blocks_after_a_given_block(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    first = world.children[seeded.notes][0]
    await call(ctx, "append_blocks", block_id=seeded.notes, markdown="挿入された段落", after=first)
    assert api.requests[-1].json["after"] == first
    assert world.tree(seeded.notes)[1] == ("paragraph", "挿入された段落")


async def test_update_block_changes_text_in_place_and_ticks_to_dos(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    paragraph = world.children[seeded.notes][0]
    result = await call(ctx, "update_block", block_id=paragraph, markdown="週次の定例・変更")
    assert result == {"id": paragraph, "type": "paragraph", "markdown": "週次の定例・変更", "has_children": False}
    assert api.requests[-1].json == {"paragraph": {"rich_text": text("週次の定例・変更"), "color": "default"}}
    (todo,) = world.add_blocks(
        seeded.notes, [{"type": "to_do", "to_do": {"rich_text": text("牛乳"), "checked": False}}]
    )
    ticked = await call(ctx, "update_block", block_id=todo, checked=True)
    assert ticked["markdown"] == "- [x] 牛乳"
    renamed = await call(ctx, "update_block", block_id=todo, markdown="卵を買う")  # plain text keeps the to-do
    assert renamed["markdown"] == "- [x] 卵を買う"
    with pytest.raises(InvalidArgument, match="the block is a paragraph and the Markdown reads as a heading_2"):
        await call(ctx, "update_block", block_id=paragraph, markdown="## 見出し")


async def test_delete_block_trashes_it(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    paragraph = world.children[seeded.notes][0]
    assert await call(ctx, "delete_block", block_id=paragraph) == {"id": paragraph, "in_trash": True}
    assert (api.requests[-1].method, api.requests[-1].path) == ("DELETE", f"/v1/blocks/{paragraph}")
    assert world.tree(seeded.notes)[0][0] == "bulleted_list_item"


async def test_update_page_content_replace_keeps_unchanged_blocks(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    before = list(world.children[seeded.notes])
    page = await call(ctx, "get_page", page_id=seeded.notes)
    markdown = (
        page["content"]["text"]
        .replace("週次の定例です。", "週次の定例です・第2回。")
        .replace("  - 予算\n", "  - 予算\n  - 人員\n")
    )
    api.requests.clear()
    result = await call(ctx, "update_page_content", page_id=seeded.notes, mode="replace", markdown=markdown)
    assert result == {"id": seeded.notes, "added": 1, "updated": 1, "deleted": 0}
    assert world.children[seeded.notes] == before  # same blocks, same ids
    writes = [(r.method, r.path) for r in api.requests if r.method != "GET"]
    nested = world.children[before[1]]
    assert writes == [("PATCH", f"/v1/blocks/{before[0]}"), ("PATCH", f"/v1/blocks/{before[1]}/children")]
    assert api.requests[-1].json["after"] == nested[0]
    assert world.tree(seeded.notes)[1] == (
        "bulleted_list_item",
        "議題",
        [("bulleted_list_item", "予算"), ("bulleted_list_item", "人員")],
    )


async def test_update_page_content_find_replace_and_append(
    ctx: Any, call: Call, world: FakeNotion, seeded: Seed
) -> None:
    result = await call(ctx, "update_page_content", page_id=seeded.notes, mode="find_replace",
                        edits=[{"old": "予算", "new": "予算と日程"}])  # fmt: skip
    assert result["updated"] == 1 and result["added"] == result["deleted"] == 0
    await call(ctx, "update_page_content", page_id=seeded.notes, mode="append", markdown="- 追記")
    assert world.tree(seeded.notes)[1][2] == [("bulleted_list_item", "予算と日程")]
    assert world.tree(seeded.notes)[-1] == ("bulleted_list_item", "追記")
    with pytest.raises(InvalidArgument, match=r"edits\[0\].old is not in the page"):
        await call(
            ctx, "update_page_content", page_id=seeded.notes, mode="find_replace", edits=[{"old": "無い", "new": "x"}]
        )


async def test_replacing_content_never_drops_a_child_page_unless_allowed(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    with pytest.raises(InvalidArgument, match="drops child pages or databases \\('議事録アーカイブ'\\)"):
        await call(ctx, "update_page_content", page_id=seeded.notes, mode="replace", markdown="週次の定例です。")
    assert all(r.method == "GET" for r in api.requests)
    result = await call(ctx, "update_page_content", page_id=seeded.notes, mode="replace", markdown="週次の定例です。",
                        allow_deleting_content=True)  # fmt: skip
    assert result["deleted"] == 2 and world.tree(seeded.notes) == [("paragraph", "週次の定例です。")]
    assert world.objects[seeded.child]["in_trash"] is True


async def test_move_page_into_a_data_source_uses_its_database(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    result = await call(ctx, "move_page", page_id=seeded.child, data_source_id=seeded.tasks)
    assert api.requests[-1].json == {"parent": {"type": "database_id", "database_id": seeded.tasks_db}}
    assert result["parent"] == f"data_source:{seeded.tasks}"
    back = await call(ctx, "move_page", page_id=seeded.child, parent_page_id=seeded.home)
    assert back["parent"] == f"page:{seeded.home}"


async def test_duplicate_page_copies_writable_properties_and_content(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    world.add_blocks(seeded.rows[0], [{"type": "paragraph", "paragraph": {"rich_text": text("詳細メモ")}}])
    result = await call(ctx, "duplicate_page", page_id=seeded.rows[0], title="見積もりを送る・再")
    create = next(r for r in api.requests if r.method == "POST")
    assert create.json["parent"] == {"type": "database_id", "database_id": seeded.tasks_db}
    assert set(create.json["properties"]) == {"名前", "Status", "Due", "Tags", "Points", "Owner", "Done", "Notes"}
    copy = await call(ctx, "get_page", page_id=result["id"])
    original = await call(ctx, "get_page", page_id=seeded.rows[0])
    assert copy["title"] == "見積もりを送る・再" and copy["content"] == original["content"]
    assert {k: v for k, v in copy["properties"].items() if k != "Score"} == {
        k: v for k, v in original["properties"].items() if k != "Score"
    }


async def test_archive_page_moves_it_to_the_trash_and_back(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    assert await call(ctx, "archive_page", page_id=seeded.child) == {"id": seeded.child, "in_trash": True}
    assert api.requests[-1].json == {"in_trash": True}
    assert await call(ctx, "archive_page", page_id=seeded.child, restore=True) == {
        "id": seeded.child,
        "in_trash": False,
    }


async def test_create_database_and_change_its_schema(ctx: Any, call: Call, api: FakeUpstream, seeded: Seed) -> None:
    created = await call(
        ctx,
        "create_database",
        parent_page_id=seeded.home,
        title="読書リスト",
        properties={
            "著者": "rich_text",
            "評価": "select: ★, ★★, ★★★",
            "読了": "checkbox",
            "関連": f"relation: {seeded.tasks}",
        },
    )
    assert api.requests[-1].path == "/v1/data_sources"
    assert api.requests[-1].json == {
        "parent": {"type": "page_id", "page_id": seeded.home},
        "title": text("読書リスト"),
        "properties": {
            "Name": {"title": {}},
            "著者": {"rich_text": {}},
            "評価": {"select": {"options": [{"name": "★"}, {"name": "★★"}, {"name": "★★★"}]}},
            "読了": {"checkbox": {}},
            "関連": {"relation": {"data_source_id": seeded.tasks, "type": "single_property", "single_property": {}}},
        },
    }
    assert created["name"] == "読書リスト" and created["properties"]["評価"] == {
        "type": "select",
        "options": ["★", "★★", "★★★"],
    }
    changed = await call(
        ctx,
        "update_data_source_schema",
        data_source_id=created["id"],
        properties={"読了": None, "著者": {"name": "作者"}, "ページ数": "number"},
        title="本",
    )
    assert api.requests[-1].json == {
        "properties": {"読了": None, "著者": {"name": "作者"}, "ページ数": {"number": {"format": "number"}}},
        "title": text("本"),
    }
    assert changed["name"] == "本" and set(changed["properties"]) == {"Name", "作者", "評価", "関連", "ページ数"}


async def test_add_comment_sends_markdown_as_rich_text(ctx: Any, call: Call, api: FakeUpstream, seeded: Seed) -> None:
    result = await call(ctx, "add_comment", page_id=seeded.notes, text="[資料](https://example.com/doc)を見てください")
    assert api.requests[-1].json == {
        "parent": {"page_id": seeded.notes},
        "rich_text": [
            {"type": "text", "text": {"content": "資料", "link": {"url": "https://example.com/doc"}}},
            {"type": "text", "text": {"content": "を見てください"}},
        ],
    }
    assert result["text"] == "[資料](https://example.com/doc)を見てください"


async def test_duplicate_page_into_another_data_source_copies_the_title_only(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    _, archive = world.add_data_source("アーカイブ", seeded.home, {"件名": {"type": "title", "title": {}}})
    result = await call(ctx, "duplicate_page", page_id=seeded.rows[1], data_source_id=archive)
    create = next(r for r in api.requests if r.method == "POST")
    assert create.json["properties"] == {"件名": {"title": text("請求書の確認")}}
    copy = await call(ctx, "get_page", page_id=result["id"], content=False)
    assert copy["parent"] == f"data_source:{archive}" and copy["title"] == "請求書の確認"


async def test_update_block_rewrites_a_table_row_by_its_cells(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    row = {"type": "table_row", "table_row": {"cells": [text("りんご"), text("100円")]}}
    (table,) = world.add_blocks(
        seeded.notes,
        [
            {
                "type": "table",
                "table": {"table_width": 2, "has_column_header": True, "has_row_header": False, "children": [row]},
            }
        ],
    )
    (row_id,) = world.children[table]
    result = await call(ctx, "update_block", block_id=row_id, markdown="| りんご | 120円 |")
    assert result["markdown"] == "| りんご | 120円 |"
    assert api.requests[-1].json == {"table_row": {"cells": [text("りんご"), text("120円")]}}
    with pytest.raises(InvalidArgument, match="the row has 2 cells"):
        await call(ctx, "update_block", block_id=row_id, markdown="| a | b | c |")
