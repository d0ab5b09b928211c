"""Contract tests of the reading tools against the fake workspace, checked against Notion's API description."""

from __future__ import annotations

from typing import Any

import pytest
from fake_notion import FakeNotion
from notion_seed import TOKEN, Call, Seed
from notion_world import ME

from mcpist.testing import FakeUpstream

pytestmark = pytest.mark.anyio


async def test_search_finds_pages_and_data_sources_by_title(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    result = await call(ctx, "search", query="タスク")
    assert result["items"] == [
        {"id": seeded.tasks, "type": "data_source", "title": "タスク", "parent": f"database:{seeded.tasks_db}",
         "last_edited": "2025-09-10T08:00:00.000Z"}
    ]  # fmt: skip
    (request,) = api.requests
    assert (request.method, request.path) == ("POST", "/v1/search")
    assert request.json == {"query": "タスク", "page_size": 20}
    assert request.headers["notion-version"] == "2025-09-03"
    assert request.headers["authorization"] == f"Bearer {TOKEN}"


async def test_search_filters_by_type_and_pages_with_a_cursor(ctx: Any, call: Call, api: FakeUpstream) -> None:
    first = await call(ctx, "search", type="page", limit=2)
    assert len(first["items"]) == 2 and all(hit["type"] == "page" for hit in first["items"])
    rest = await call(ctx, "search", type="page", limit=100, cursor=first["next_cursor"])
    titles = [hit["title"] for hit in first["items"] + rest["items"]]
    assert "next_cursor" not in rest
    assert len(titles) == len(set(titles)) == 6
    assert api.requests[0].json == {"query": "", "page_size": 2, "filter": {"property": "object", "value": "page"}}
    assert api.requests[1].json["start_cursor"]  # Notion's own cursor went back


async def test_get_page_gives_plain_properties_and_markdown(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    page = await call(ctx, "get_page", page_id=seeded.notes)
    assert page["title"] == "会議メモ" and page["parent"] == f"page:{seeded.home}"
    assert "properties" not in page  # a plain page has only its title
    child = seeded.child.replace("-", "")
    text = (
        "週次の定例です。\n\n- [議題](https://example.com/a)\n  - 予算\n\n"
        f'[議事録アーカイブ](https://www.notion.so/{child}) <!-- notion:{{"type":"child_page"}} -->'
    )
    assert page["content"] == {"text": text, "offset": 0, "total_chars": len(text), "truncated": False}
    paths = sorted(r.path for r in api.requests)
    assert paths == sorted([f"/v1/pages/{seeded.notes}", f"/v1/blocks/{seeded.notes}/children",
                            f"/v1/blocks/{api.requests[2].path.split('/')[3]}/children"])  # fmt: skip


async def test_get_page_of_a_row_flattens_every_property_type(ctx: Any, call: Call, seeded: Seed) -> None:
    page = await call(
        ctx, "get_page", page_id=f"https://www.notion.so/x-{seeded.rows[0].replace('-', '')}", content=False
    )
    assert page["title"] == "見積もりを送る"
    assert page["parent"] == f"data_source:{seeded.tasks}"
    assert page["properties"] == {
        "Status": "未着手",
        "Due": "2025-10-01",
        "Tags": ["仕事"],
        "Points": 3,
        "Owner": [f"山田 花子 <{ME}>"],
        "Done": False,
        "Score": 6,
        "Notes": "急ぎ",
    }


async def test_long_content_is_clipped_and_read_on_with_offset(
    ctx: Any, call: Call, world: FakeNotion, seeded: Seed
) -> None:
    line = "長い段落のテキストです。" * 10
    world.add_blocks(
        seeded.home,
        [{"type": "paragraph", "paragraph": {"rich_text": [{"type": "text", "text": {"content": line}}]}}] * 40,
    )
    first = await call(ctx, "get_page", page_id=seeded.home, max_chars=1000)
    assert first["content"]["truncated"] is True and first["content"]["next_offset"] <= 1000
    text = first["content"]["text"]
    offset = first["content"]["next_offset"]
    while offset is not None:
        more = await call(ctx, "get_page", page_id=seeded.home, max_chars=1000, offset=offset)
        text += more["content"]["text"]
        offset = more["content"].get("next_offset")
    assert text.count(line) == 40 and len(text) == first["content"]["total_chars"]


async def test_block_children_come_with_ids_and_markdown(ctx: Any, call: Call, world: FakeNotion, seeded: Seed) -> None:
    result = await call(ctx, "get_block_children", block_id=seeded.notes, limit=2)
    first, second = result["items"]
    assert first == {
        "id": world.children[seeded.notes][0],
        "type": "paragraph",
        "markdown": "週次の定例です。",
        "has_children": False,
    }
    assert second["markdown"] == "- [議題](https://example.com/a)" and second["has_children"] is True
    rest = await call(ctx, "get_block_children", block_id=seeded.notes, cursor=result["next_cursor"])
    assert [item["type"] for item in rest["items"]] == ["child_page"] and "next_cursor" not in rest


async def test_get_page_property_reads_all_values_page_by_page(
    ctx: Any, call: Call, api: FakeUpstream, world: FakeNotion, seeded: Seed
) -> None:
    row = world.objects[seeded.rows[0]]
    related = [{"id": world.new_id()} for _ in range(30)]
    row["properties"]["Related"] = {
        "id": "%3Ar",
        "type": "relation",
        "relation": related[:25],
        "has_more": True,
        "all": related,
    }
    page = await call(ctx, "get_page", page_id=seeded.rows[0], content=False)
    assert page["notes"] == ["property 'Related' has more values than shown: read them with get_page_property"]
    first = await call(ctx, "get_page_property", page_id=seeded.rows[0], property="Related", limit=20)
    rest = await call(ctx, "get_page_property", page_id=seeded.rows[0], property="%3Ar", cursor=first["next_cursor"])
    assert first["type"] == "relation" and first["value"] + rest["value"] == [r["id"] for r in related]
    assert "next_cursor" not in rest
    assert api.requests[-1].path == f"/v1/pages/{seeded.rows[0]}/properties/:r"  # as decoded by the fake
    number = await call(ctx, "get_page_property", page_id=seeded.rows[0], property="Points")
    assert number == {"name": "Points", "type": "number", "value": 3}


async def test_get_database_lists_data_sources_with_their_schema(ctx: Any, call: Call, seeded: Seed) -> None:
    by_source = await call(ctx, "get_database", data_source_id=seeded.tasks)
    by_database = await call(ctx, "get_database", database_id=seeded.tasks_db)
    assert by_source == by_database
    (source,) = by_database["data_sources"]
    assert by_database["title"] == "タスク" and source["id"] == seeded.tasks and source["name"] == "タスク"
    assert source["properties"]["Status"] == {"type": "status", "options": ["未着手", "完了"]}
    assert source["properties"]["Score"] == {"type": "formula", "expression": 'prop("Points") * 2'}
    assert source["properties"]["名前"] == {"type": "title"}


async def test_query_filters_sorts_and_returns_flat_rows(ctx: Any, call: Call, api: FakeUpstream, seeded: Seed) -> None:
    result = await call(
        ctx,
        "query_data_source",
        data_source_id=seeded.tasks,
        filter={"property": "Status", "status": {"equals": "未着手"}},
        sorts=[{"property": "Due", "direction": "descending"}],
        columns=["Due", "Points"],
    )
    first, second = result["items"]
    assert first == {
        "id": seeded.rows[2],
        "title": "Write the release notes",
        "url": "https://www.notion.so/" + seeded.rows[2].replace("-", ""),
        "properties": {"Due": "2025-10-15", "Points": 5},
    }
    assert (second["title"], second["properties"]) == ("見積もりを送る", {"Due": "2025-10-01", "Points": 3})
    assert api.requests[0].json == {
        "page_size": 25,
        "filter": {"property": "Status", "status": {"equals": "未着手"}},
        "sorts": [{"property": "Due", "direction": "descending"}],
    }


async def test_query_pages_through_has_more_and_next_cursor(
    ctx: Any, call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    first = await call(ctx, "query_data_source", data_source_id=seeded.tasks, limit=2)
    assert len(first["items"]) == 2 and first["next_cursor"]
    second = await call(ctx, "query_data_source", data_source_id=seeded.tasks, limit=2, cursor=first["next_cursor"])
    assert len(second["items"]) == 1 and "next_cursor" not in second
    assert {row["id"] for row in first["items"] + second["items"]} == set(seeded.rows)
    assert api.requests[1].json["start_cursor"] == seeded.rows[2]


async def test_comments_and_users_are_listed_compactly(ctx: Any, call: Call, world: FakeNotion, seeded: Seed) -> None:
    await call(ctx, "add_comment", page_id=seeded.notes, text="**確認**しました")
    comments = await call(ctx, "list_comments", block_id=seeded.notes)
    (comment,) = comments["items"]
    assert comment["text"] == "**確認**しました" and comment["author"] == ME
    users = await call(ctx, "list_users", limit=1)
    assert users["items"] == [{"id": ME, "name": "山田 花子", "type": "person", "email": "hanako@example.com"}]
    more = await call(ctx, "list_users", cursor=users["next_cursor"])
    assert [u["type"] for u in more["items"]] == ["bot"]
