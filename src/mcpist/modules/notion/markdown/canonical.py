"""Blocks and rich text reduced to what a request can say: no ids, timestamps or default values.

Notion answers with response objects (ids, `plain_text`, every annotation, `null`s); the Markdown
conversion works on this canonical form instead, so that "blocks -> Markdown -> blocks" can be checked
for equality and adjacent text runs that Notion happened to split compare equal.
"""

from __future__ import annotations

import copy
from typing import Any

Block = dict[str, Any]
RichText = list[dict[str, Any]]

MARKS = ("bold", "italic", "strikethrough", "underline", "code")

TEXT_TYPES = frozenset(
    {
        "paragraph",
        "heading_1",
        "heading_2",
        "heading_3",
        "bulleted_list_item",
        "numbered_list_item",
        "quote",
        "to_do",
        "toggle",
        "callout",
        "template",
    }
)
MEDIA_TYPES = frozenset({"image", "video", "file", "pdf", "audio"})
# pages and databases inside a page: their content belongs to them, not to the block tree read here
OWN_PAGES = frozenset({"child_page", "child_database"})
_RESPONSE_ONLY = frozenset(
    {"object", "id", "parent", "created_time", "last_edited_time", "created_by", "last_edited_by", "has_children"}
    | {"archived", "in_trash", "request_id"}
)


def canonical_rich_text(items: Any) -> RichText:
    """Rich text as a request would send it, with adjacent runs of the same formatting merged."""
    out: RichText = []
    for raw in items if isinstance(items, list) else []:
        item = _canonical_item(raw) if isinstance(raw, dict) else None
        if item is None:
            continue
        previous = out[-1] if out else None
        if previous is not None and _mergeable(previous, item):
            previous["text"]["content"] += item["text"]["content"]
        else:
            out.append(item)
    return [item for item in out if item["type"] != "text" or item["text"]["content"]]


def _canonical_item(raw: dict[str, Any]) -> dict[str, Any] | None:
    kind = raw.get("type") or ("text" if "text" in raw else None)
    annotations = _annotations(raw.get("annotations"))
    item: dict[str, Any]
    if kind == "text":
        text = raw.get("text") or {}
        content = text.get("content")
        if not isinstance(content, str):
            content = raw.get("plain_text") if isinstance(raw.get("plain_text"), str) else ""
        item = {"type": "text", "text": {"content": content}}
        link = text.get("link")
        if isinstance(link, dict) and isinstance(link.get("url"), str) and link["url"]:
            item["text"]["link"] = {"url": link["url"]}
    elif kind == "equation":
        item = {"type": "equation", "equation": {"expression": str((raw.get("equation") or {}).get("expression", ""))}}
    elif kind == "mention":
        item = {"type": "mention", "mention": _canonical_mention(raw.get("mention") or {})}
        item["plain_text"] = str(raw.get("plain_text") or "")
    else:
        return None
    if annotations:
        item["annotations"] = annotations
    return item


def _annotations(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {}
    out: dict[str, Any] = {mark: True for mark in MARKS if raw.get(mark) is True}
    color = raw.get("color")
    if isinstance(color, str) and color != "default":
        out["color"] = color
    return out


def _canonical_mention(raw: dict[str, Any]) -> dict[str, Any]:
    kind = raw.get("type")
    value = raw.get(kind) if isinstance(kind, str) else None
    if not isinstance(kind, str) or not isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in raw.items() if v is not None}
    if kind in ("user", "page", "database", "data_source", "custom_emoji"):
        return {"type": kind, kind: {"id": value.get("id")}}
    return {"type": kind, kind: {k: _drop_nulls(v) for k, v in value.items() if v is not None}}


def _mergeable(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        a["type"] == "text"
        and b["type"] == "text"
        and a.get("annotations") == b.get("annotations")
        and a["text"].get("link") == b["text"].get("link")
    )


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def plain_text(items: RichText) -> str:
    """What the rich text reads as, without formatting."""
    parts: list[str] = []
    for item in items:
        if item["type"] == "text":
            parts.append(item["text"]["content"])
        elif item["type"] == "equation":
            parts.append(item["equation"]["expression"])
        else:
            parts.append(str(item.get("plain_text", "")))
    return "".join(parts)


def canonical_block(raw: Block) -> Block:
    """One block (and the `children` list the tree reader attaches) in canonical form."""
    kind = str(raw.get("type", "unsupported"))
    data = raw.get(kind)
    data = data if isinstance(data, dict) else {}
    payload = _payload(kind, data)
    block: Block = {"type": kind, kind: payload}
    if kind in OWN_PAGES and isinstance(raw.get("id"), str):
        block["id"] = raw["id"]  # the Markdown link carries it: the page itself, not a copy, is what it shows
    children = raw.get("children")
    if isinstance(children, list) and children and kind not in OWN_PAGES:
        block["children"] = [canonical_block(child) for child in children if isinstance(child, dict)]
    return block


def canonical_blocks(raw: list[Block]) -> list[Block]:
    return [canonical_block(block) for block in raw]


def is_synced_copy(block: Block) -> bool:
    """A synced block that shows another block's children: they are written to the original, never to it."""
    return block["type"] == "synced_block" and block["synced_block"].get("synced_from") is not None


def _payload(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind in TEXT_TYPES:
        return _text_payload(kind, data)
    if kind == "code":
        out: dict[str, Any] = {
            "rich_text": canonical_rich_text(data.get("rich_text")),
            "language": str(data.get("language") or "plain text"),
        }
        return _with_caption(out, data)
    if kind in MEDIA_TYPES:
        return _media_payload(kind, data)
    if kind in ("bookmark", "embed"):
        return _with_caption({"url": str(data.get("url") or "")}, data)
    if kind == "link_preview":
        return {"url": str(data.get("url") or "")}
    if kind == "equation":
        return {"expression": str(data.get("expression") or "")}
    if kind in ("divider", "breadcrumb", "column_list"):
        return {}
    if kind == "table_of_contents":
        return _with_color({}, data)
    if kind == "table":
        return {
            "table_width": int(data.get("table_width") or 0),
            "has_column_header": bool(data.get("has_column_header")),
            "has_row_header": bool(data.get("has_row_header")),
        }
    if kind == "table_row":
        cells = data.get("cells")
        return {"cells": [canonical_rich_text(cell) for cell in cells] if isinstance(cells, list) else []}
    if kind == "column":
        ratio = data.get("width_ratio")
        return {"width_ratio": ratio} if isinstance(ratio, int | float) else {}
    if kind in OWN_PAGES:
        return {"title": str(data.get("title") or "")}
    if kind == "synced_block":
        source = data.get("synced_from")
        if isinstance(source, dict) and source.get("block_id"):
            return {"synced_from": {"block_id": source["block_id"]}}
        return {"synced_from": None}
    if kind == "link_to_page":
        return _drop_nulls(copy.deepcopy(data))  # type: ignore[no-any-return]
    return {k: v for k, v in _drop_nulls(copy.deepcopy(data)).items() if k not in _RESPONSE_ONLY and k != "children"}


def _text_payload(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"rich_text": canonical_rich_text(data.get("rich_text"))}
    if kind == "to_do":
        out["checked"] = bool(data.get("checked"))
    if kind.startswith("heading_") and data.get("is_toggleable") is True:
        out["is_toggleable"] = True
    if kind == "callout" and isinstance(data.get("icon"), dict):
        out["icon"] = _icon(data["icon"])
    if kind == "numbered_list_item":
        for key in ("list_start_index", "list_format"):
            if data.get(key) is not None:
                out[key] = data[key]
    return _with_color(out, data)


def _icon(icon: dict[str, Any]) -> dict[str, Any]:
    kind = icon.get("type")
    if kind == "emoji":
        return {"type": "emoji", "emoji": icon.get("emoji")}
    if kind in ("external", "file") and isinstance(icon.get(kind), dict):
        return {"type": kind, kind: {"url": icon[kind].get("url")}}
    return _drop_nulls(icon)  # type: ignore[no-any-return]


def _media_payload(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    source = str(data.get("type")) if data.get("type") in ("external", "file", "file_upload") else "external"
    found = data.get(source)
    inner: dict[str, Any] = found if isinstance(found, dict) else {}
    out: dict[str, Any] = {"type": source}
    out[source] = {"id": inner.get("id")} if source == "file_upload" else {"url": str(inner.get("url") or "")}
    if kind == "file" and isinstance(data.get("name"), str) and data["name"]:
        out["name"] = data["name"]
    return _with_caption(out, data)


def _with_caption(out: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    caption = canonical_rich_text(data.get("caption"))
    if caption:
        out["caption"] = caption
    return out


def _with_color(out: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    color = data.get("color")
    if isinstance(color, str) and color != "default":
        out["color"] = color
    return out


def head(block: Block) -> Block:
    """The block without its children."""
    return {k: v for k, v in block.items() if k != "children"}
