"""One response-form block of every type the API documents, as Notion answers them (ids, timestamps and all)."""

from __future__ import annotations

import itertools
from typing import Any

from notion_world import ME, rich

_ids = itertools.count(1)
PAGE = "59833787-2cf9-4fdf-8782-e53db20768a5"


def block(kind: str, payload: dict[str, Any], children: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    n = next(_ids)
    out: dict[str, Any] = {
        "object": "block",
        "id": f"{n:08x}-1111-4222-8333-{n:012x}",
        "parent": {"type": "page_id", "page_id": PAGE},
        "created_time": "2025-09-10T08:00:00.000Z",
        "last_edited_time": "2025-09-10T08:05:00.000Z",
        "created_by": {"object": "user", "id": ME},
        "last_edited_by": {"object": "user", "id": ME},
        "has_children": bool(children),
        "archived": False,
        "in_trash": False,
        "type": kind,
        kind: payload,
    }
    if children:
        out["children"] = children
    return out


def text(kind: str, *items: dict[str, Any], color: str = "default", **more: Any) -> dict[str, Any]:
    return {"rich_text": list(items), "color": color, **more}


def mention(kind: str, value: dict[str, Any], shown: str) -> dict[str, Any]:
    return {
        "type": "mention",
        "mention": {"type": kind, kind: value},
        "annotations": {
            "bold": False,
            "italic": False,
            "strikethrough": False,
            "underline": False,
            "code": False,
            "color": "default",
        },
        "plain_text": shown,
        "href": None,
    }


def equation(expression: str) -> dict[str, Any]:
    return {**rich(expression), "type": "equation", "equation": {"expression": expression}, "text": None}


def external(url: str, caption: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"caption": caption or [], "type": "external", "external": {"url": url}}


def catalog() -> dict[str, dict[str, Any]]:
    """Every block type, keyed by a test id."""
    row = lambda *cells: block("table_row", {"cells": [[rich(c)] for c in cells]})  # noqa: E731
    return {
        "paragraph": block("paragraph", text("p", rich("ただの段落です。"))),
        "paragraph_annotations": block(
            "paragraph",
            text(
                "p",
                rich("太字", bold=True),
                rich("と"),
                rich("斜体", italic=True),
                rich("、"),
                rich("取消", strikethrough=True),
                rich("・"),
                rich("code", code=True),
                rich("・"),
                rich("下線", underline=True),
                rich("・"),
                rich("赤", color="red"),
                rich("・"),
                rich("リンク", link="https://example.com/x"),
                rich("・"),
                rich("背景", color="yellow_background", bold=True),
            ),
        ),
        "paragraph_mentions": block(
            "paragraph",
            text(
                "p",
                rich("担当: "),
                mention("user", {"object": "user", "id": ME}, "@山田 花子"),
                rich(" 期限: "),
                mention("date", {"start": "2025-10-01", "end": None, "time_zone": None}, "2025-10-01"),
                rich(" 参照: "),
                mention("page", {"id": PAGE}, "会議メモ"),
                rich(" 式: "),
                equation("e^{i\\pi}+1=0"),
            ),
        ),
        "paragraph_colored_multiline": block(
            "paragraph", text("p", rich("一行目\n二行目\n# 見出しではない"), color="blue_background")
        ),
        "paragraph_empty": block("paragraph", text("p")),
        "paragraph_nested": block(
            "paragraph", text("p", rich("親")), [block("paragraph", text("p", rich("インデントされた子")))]
        ),
        "heading_1": block("heading_1", text("h", rich("大見出し"), is_toggleable=False)),
        "heading_2": block("heading_2", text("h", rich("中見出し"), is_toggleable=False, color="red")),
        "heading_3_toggleable": block(
            "heading_3",
            text("h", rich("開閉できる見出し"), is_toggleable=True),
            [block("paragraph", text("p", rich("中身")))],
        ),
        "bulleted_list_nested": block(
            "bulleted_list_item",
            text("b", rich("項目")),
            [
                block(
                    "bulleted_list_item",
                    text("b", rich("子項目")),
                    [block("bulleted_list_item", text("b", rich("孫項目")))],
                )
            ],
        ),
        "numbered_list": block(
            "numbered_list_item", text("n", rich("手順")), [block("numbered_list_item", text("n", rich("細目")))]
        ),
        "to_do": block("to_do", text("t", rich("牛乳を買う"), checked=False)),
        "to_do_checked": block("to_do", text("t", rich("済んだこと"), checked=True)),
        "toggle": block("toggle", text("t", rich("詳細")), [block("paragraph", text("p", rich("隠れた内容")))]),
        "quote": block("quote", text("q", rich("引用文\n二行目"))),
        "callout": block(
            "callout",
            text("c", rich("注意してください"), icon={"type": "emoji", "emoji": "💡"}, color="gray_background"),
            [block("paragraph", text("p", rich("補足")))],
        ),
        "code": block(
            "code", {"caption": [], "rich_text": [rich("print('こんにちは')\n```\nx = 1")], "language": "python"}
        ),
        "code_plain_caption": block(
            "code", {"caption": [rich("例")], "rich_text": [rich("a  b")], "language": "plain text"}
        ),
        "code_formatted": block(
            "code", {"caption": [], "rich_text": [rich("bold", bold=True)], "language": "javascript"}
        ),
        "divider": block("divider", {}),
        "table": block(
            "table",
            {"table_width": 2, "has_column_header": True, "has_row_header": False},
            [row("名前", "値 | 記号"), row("りんご", "100円"), row("", "x")],
        ),
        "table_no_header": block(
            "table",
            {"table_width": 2, "has_column_header": False, "has_row_header": True},
            [row("a", "b"), row("c", "d")],
        ),
        "image": block("image", external("https://example.com/cat.png", [rich("猫の写真")])),
        "image_hosted": block(
            "image",
            {
                "caption": [],
                "type": "file",
                "file": {
                    "url": "https://prod-files.s3.amazonaws.com/x.png?sig=1",
                    "expiry_time": "2025-09-10T09:00:00.000Z",
                },
            },
        ),
        "file": block("file", {**external("https://example.com/report.pdf"), "name": "report.pdf"}),
        "video": block("video", external("https://www.youtube.com/watch?v=abc")),
        "pdf": block("pdf", external("https://example.com/doc.pdf", [rich("資料")])),
        "audio": block("audio", external("https://example.com/a.mp3")),
        "bookmark": block("bookmark", {"caption": [], "url": "https://developers.notion.com/"}),
        "embed": block("embed", {"caption": [], "url": "https://www.figma.com/file/abc"}),
        "link_preview": block("link_preview", {"url": "https://github.com/makenotion/notion-sdk-js/pull/1"}),
        "equation": block("equation", {"expression": "\\int_0^1 x^2 \\, dx = \\frac{1}{3}"}),
        "child_page": {**block("child_page", {"title": "子ページ"}), "id": "0f0e0d0c-0b0a-4909-8807-060504030201"},
        "child_database": {
            **block("child_database", {"title": "タスク一覧"}),
            "id": "1f0e0d0c-0b0a-4909-8807-060504030201",
        },
        "column_list": block(
            "column_list",
            {},
            [
                block("column", {}, [block("paragraph", text("p", rich("左")))]),
                block(
                    "column",
                    {},
                    [
                        block("heading_3", text("h", rich("右"), is_toggleable=False)),
                        block("to_do", text("t", rich("x"), checked=False)),
                    ],
                ),
            ],
        ),
        "synced_block_original": block(
            "synced_block", {"synced_from": None}, [block("paragraph", text("p", rich("共有される内容")))]
        ),
        "synced_block_copy": block(
            "synced_block",
            {"synced_from": {"type": "block_id", "block_id": "2f0e0d0c-0b0a-4909-8807-060504030201"}},
            [block("paragraph", text("p", rich("元の内容")))],
        ),
        "link_to_page": block("link_to_page", {"type": "page_id", "page_id": PAGE}),
        "table_of_contents": block("table_of_contents", {"color": "default"}),
        "breadcrumb": block("breadcrumb", {}),
        "unsupported": block("unsupported", {}),
        "template": block("template", {"rich_text": [rich("新しいタスク")]}),
        "ai_block_unknown": block("meeting_notes", {"title": [rich("定例")], "status": "notes_ready"}),
    }
