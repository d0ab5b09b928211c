"""A Notion workspace in memory: pages, blocks, databases with one data source each, users and comments.

It holds objects in the shapes the 2025-09-03 API answers with, and turns request bodies into them the
way Notion does (full annotations, `plain_text`, option ids), so that the module reads back what it wrote.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

TIME = "2025-09-10T08:00:00.000Z"
ME = "5389a034-eb5c-47b5-8a9e-f79c99ef166c"
BOT = "7b1a5d10-0c5e-4a43-9f0e-1d2c3b4a5f60"
_COLORED = ("paragraph", "bulleted_list_item", "numbered_list_item", "heading_1", "heading_2", "heading_3", "to_do")


def rich(text: str, **marks: Any) -> dict[str, Any]:
    """One rich text object as Notion answers it."""
    link = marks.pop("link", None)
    annotations = {"bold": False, "italic": False, "strikethrough": False, "underline": False, "code": False}
    return {
        "type": "text",
        "text": {"content": text, "link": {"url": link} if link else None},
        "annotations": {**annotations, "color": "default", **marks},
        "plain_text": text,
        "href": link,
    }


def answer_rich(item: dict[str, Any], shown: str = "") -> dict[str, Any]:
    """A request's rich text object as Notion answers it; `shown` is what Notion shows for a mention."""
    if item.get("type", "text") != "text":
        plain = {"bold": False, "italic": False, "strikethrough": False, "underline": False, "code": False}
        annotations = {**plain, "color": "default", **item.get("annotations", {})}
        if item["type"] == "equation":
            shown = item["equation"]["expression"]
        return {**item, "annotations": annotations, "plain_text": shown, "href": None}
    link = (item["text"].get("link") or {}).get("url")
    return rich(item["text"]["content"], link=link, **item.get("annotations", {}))


def prop_id(name: str) -> str:
    return "title" if name in ("Name", "title", "名前") else "%3A" + "".join(f"{ord(c) % 36:x}" for c in name[:4])


class NotionWorld:
    def __init__(self) -> None:
        self._ids = itertools.count(100)
        self.objects: dict[str, dict[str, Any]] = {}  # pages, data sources, databases
        self.blocks: dict[str, dict[str, Any]] = {}
        self.children: dict[str, list[str]] = {}  # page or block id -> child block ids
        self.comments: list[dict[str, Any]] = []
        self.users: list[dict[str, Any]] = [
            {"object": "user", "id": ME, "name": "山田 花子", "avatar_url": None, "type": "person",
             "person": {"email": "hanako@example.com"}},
            {"object": "user", "id": BOT, "name": "Build bot", "avatar_url": None, "type": "bot", "bot": {}},
        ]  # fmt: skip

    def new_id(self) -> str:
        n = next(self._ids)
        return f"{n:08x}-aaaa-4bbb-8ccc-{n:012x}"

    def add_page(self, title: str, parent: dict[str, Any] | None = None, **properties: Any) -> str:
        pid = self.new_id()
        parent = parent or {"type": "workspace", "workspace": True}
        title_name = "title"
        if parent.get("type") == "data_source_id":
            source = self.objects[parent["data_source_id"]]
            title_name = next(n for n, p in source["properties"].items() if p["type"] == "title")
        self.objects[pid] = {
            "object": "page", "id": pid, "created_time": TIME, "last_edited_time": TIME,
            "created_by": {"object": "user", "id": ME}, "last_edited_by": {"object": "user", "id": ME},
            "cover": None, "icon": None, "parent": parent, "archived": False, "in_trash": False,
            "properties": {title_name: {"id": "title", "type": "title", "title": [rich(title)]}, **properties},
            "url": f"https://www.notion.so/{pid.replace('-', '')}", "public_url": None,
        }  # fmt: skip
        self.children.setdefault(pid, [])
        if parent.get("type") == "page_id":
            self._block(parent["page_id"], {"type": "child_page", "child_page": {"title": title}}, pid)
            self.children[parent["page_id"]].append(pid)
        return pid

    def add_blocks(self, parent_id: str, blocks: list[dict[str, Any]], after: str | None = None) -> list[str]:
        """Request-form blocks (children nested in their payloads) added under a parent."""
        made = [self._block(parent_id, block) for block in blocks]
        siblings = self.children.setdefault(parent_id, [])
        at = siblings.index(after) + 1 if after else len(siblings)
        siblings[at:at] = made
        return made

    def add_data_source(self, title: str, parent_page: str, properties: dict[str, Any]) -> tuple[str, str]:
        """A database in a page holding one data source; returns (database id, data source id)."""
        dbid, dsid = self.new_id(), self.new_id()
        props = {name: {"id": prop_id(name), "name": name, **spec} for name, spec in properties.items()}
        self.objects[dsid] = {
            "object": "data_source", "id": dsid, "created_time": TIME, "last_edited_time": TIME,
            "title": [rich(title)], "description": [], "properties": props,
            "parent": {"type": "database_id", "database_id": dbid},
            "database_parent": {"type": "page_id", "page_id": parent_page}, "archived": False, "in_trash": False,
        }  # fmt: skip
        self.objects[dbid] = {
            "object": "database", "id": dbid, "created_time": TIME, "last_edited_time": TIME, "title": [rich(title)],
            "parent": {"type": "page_id", "page_id": parent_page}, "is_inline": False, "in_trash": False,
            "data_sources": [{"id": dsid, "name": title}], "url": f"https://www.notion.so/{dbid.replace('-', '')}",
        }  # fmt: skip
        return dbid, dsid

    def _block(self, parent_id: str, block: dict[str, Any], bid: str | None = None) -> str:
        bid = bid or self.new_id()
        kind = block["type"]
        payload = copy.deepcopy(block.get(kind, {}))
        kids = payload.pop("children", [])
        for key in ("rich_text", "caption"):
            if key in payload:
                payload[key] = [self.answer(item) for item in payload[key]]
        if kind == "table_row":
            payload["cells"] = [[self.answer(item) for item in cell] for cell in payload["cells"]]
        if kind in _COLORED:
            payload.setdefault("color", "default")
        parent_kind = "page_id" if parent_id in self.objects else "block_id"
        self.blocks[bid] = {
            "object": "block", "id": bid, "parent": {"type": parent_kind, parent_kind: parent_id},
            "created_time": TIME, "last_edited_time": TIME, "created_by": {"object": "user", "id": ME},
            "last_edited_by": {"object": "user", "id": ME}, "has_children": False, "archived": False,
            "in_trash": False, "type": kind, kind: payload,
        }  # fmt: skip
        self.children.setdefault(bid, [])
        if kids:
            self.add_blocks(bid, kids)
        return bid

    def answer(self, item: dict[str, Any]) -> dict[str, Any]:
        """A request's rich text object as Notion answers it, mentions showing what they name."""
        mention = item.get("mention") or {}
        kind = mention.get("type")
        shown = ""
        if kind == "user":
            shown = "@" + next((u["name"] for u in self.users if u["id"] == mention["user"]["id"]), "Unknown")
        elif kind == "date":
            shown = mention["date"]["start"]
        elif kind == "page":
            page = self.objects.get(mention["page"]["id"])
            shown = title_text(page) if page else "Untitled"
        return answer_rich(item, shown)

    def live(self, parent_id: str) -> list[dict[str, Any]]:
        return [
            self.answer_block(self.blocks[b])
            for b in self.children.get(parent_id, [])
            if not self.blocks[b]["in_trash"]
        ]

    def answer_block(self, block: dict[str, Any]) -> dict[str, Any]:
        return {**block, "has_children": bool(self.live(block["id"]))}

    def tree(self, parent_id: str) -> list[Any]:
        """What a page or block holds now, as (type, text[, children]) tuples, for assertions."""
        out: list[Any] = []
        for block in self.live(parent_id):
            data = block[block["type"]]
            text = "".join(item["plain_text"] for item in data.get("rich_text", [])) or data.get("title", "")
            below = self.tree(block["id"]) if block["type"] != "child_page" else []
            out.append((block["type"], text, below) if below else (block["type"], text))
        return out

    def answer_value(self, kind: str, value: Any) -> Any:
        if kind in ("title", "rich_text"):
            return [self.answer(item) for item in value]
        if kind in ("select", "status"):
            return None if value is None else {"id": prop_id(value["name"]), "name": value["name"], "color": "blue"}
        if kind == "multi_select":
            return [{"id": prop_id(v["name"]), "name": v["name"], "color": "gray"} for v in value]
        if kind == "people":
            known = {u["id"]: u for u in self.users}
            return [known.get(v["id"], {"object": "user", "id": v["id"]}) for v in value]
        if kind == "date" and value is not None:
            return {"start": value["start"], "end": value.get("end"), "time_zone": None}
        return value


def title_text(obj: dict[str, Any]) -> str:
    if isinstance(obj.get("title"), list):
        return "".join(r["plain_text"] for r in obj["title"])
    titles = [p["title"] for p in obj.get("properties", {}).values() if p["type"] == "title"]
    return "".join(r["plain_text"] for r in titles[0]) if titles else ""


def plain_value(prop: dict[str, Any] | None) -> Any:
    if prop is None:
        return None
    value = prop[prop["type"]]
    if isinstance(value, list):
        return "".join(r.get("plain_text", "") for r in value)
    return value.get("name", value.get("start")) if isinstance(value, dict) else value
