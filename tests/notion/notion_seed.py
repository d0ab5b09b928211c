"""The workspace most tests start from: a home page, meeting notes with a child page, and a task database."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fake_notion import FakeNotion
from notion_world import ME, rich

TOKEN = "secret_test"


@dataclass
class Seed:
    home: str
    notes: str
    child: str
    tasks_db: str
    tasks: str
    rows: list[str]


def seed(world: FakeNotion) -> Seed:
    home = world.add_page("ホーム")
    notes = world.add_page("会議メモ", {"type": "page_id", "page_id": home})
    world.add_blocks(
        notes,
        [
            {
                "type": "paragraph",
                "paragraph": {"rich_text": [{"type": "text", "text": {"content": "週次の定例です。"}}]},
            },
            {
                "type": "bulleted_list_item",
                "bulleted_list_item": {
                    "rich_text": [
                        {"type": "text", "text": {"content": "議題", "link": {"url": "https://example.com/a"}}}
                    ],
                    "children": [
                        {
                            "type": "bulleted_list_item",
                            "bulleted_list_item": {"rich_text": [{"type": "text", "text": {"content": "予算"}}]},
                        }
                    ],
                },
            },
        ],
    )
    child = world.add_page("議事録アーカイブ", {"type": "page_id", "page_id": notes})
    tasks_db, tasks = world.add_data_source(
        "タスク",
        home,
        {
            "名前": {"type": "title", "title": {}},
            "Status": {"type": "status", "status": {"options": [{"id": "s1", "name": "未着手", "color": "red"},
                       {"id": "s2", "name": "完了", "color": "green"}], "groups": []}},
            "Due": {"type": "date", "date": {}},
            "Tags": {"type": "multi_select", "multi_select": {"options": [{"id": "t1", "name": "仕事"}]}},
            "Points": {"type": "number", "number": {"format": "number"}},
            "Owner": {"type": "people", "people": {}},
            "Done": {"type": "checkbox", "checkbox": {}},
            "Notes": {"type": "rich_text", "rich_text": {}},
            "Score": {"type": "formula", "formula": {"expression": 'prop("Points") * 2'}},
        },
    )  # fmt: skip
    parent = {"type": "data_source_id", "data_source_id": tasks, "database_id": tasks_db}
    rows = [
        world.add_page(
            title,
            parent,
            Status={"id": "%3As", "type": "status", "status": {"id": "s1", "name": status, "color": "red"}},
            Due={"id": "%3Ad", "type": "date", "date": {"start": due, "end": None, "time_zone": None}},
            Tags={
                "id": "%3At",
                "type": "multi_select",
                "multi_select": [{"id": "t1", "name": "仕事", "color": "blue"}],
            },
            Points={"id": "%3Ap", "type": "number", "number": points},
            Owner={"id": "%3Ao", "type": "people", "people": [{"object": "user", "id": ME, "name": "山田 花子"}]},
            Done={"id": "%3Ac", "type": "checkbox", "checkbox": status == "完了"},
            Score={"id": "%3Af", "type": "formula", "formula": {"type": "number", "number": points * 2}},
        )
        for title, status, due, points in [
            ("見積もりを送る", "未着手", "2025-10-01", 3),
            ("請求書の確認", "完了", "2025-09-20", 1),
            ("Write the release notes", "未着手", "2025-10-15", 5),
        ]
    ]
    world.objects[rows[0]]["properties"]["Notes"] = {"id": "%3An", "type": "rich_text", "rich_text": [rich("急ぎ")]}
    return Seed(home, notes, child, tasks_db, tasks, rows)


Call = Callable[..., Awaitable[Any]]
