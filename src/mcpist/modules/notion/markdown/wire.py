"""Canonical blocks -> the request bodies Notion takes: its limits met, nothing sent it would refuse.

A text object holds at most 2000 characters (counted in UTF-16, as Notion does) and a rich text array
at most 100 objects; longer text is split across objects, then across blocks of the same type.
"""

from __future__ import annotations

import copy
from typing import Any

from .canonical import TEXT_TYPES, Block, RichText

MAX_TEXT = 2000
MAX_ITEMS = 100


def split_text(text: str, size: int = MAX_TEXT) -> list[str]:
    """`text` in pieces of at most `size` UTF-16 code units, never splitting a character."""
    pieces: list[str] = []
    start = used = 0
    for index, ch in enumerate(text):
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > size:
            pieces.append(text[start:index])
            start, used = index, 0
        used += width
    if start < len(text) or not pieces:
        pieces.append(text[start:])
    return pieces


def text_items(text: str) -> RichText:
    """Plain text as request rich text."""
    return [{"type": "text", "text": {"content": piece}} for piece in split_text(text) if piece]


def wire_rich_text(items: RichText) -> RichText:
    """Canonical rich text as a request sends it: long text split, the shown text of mentions dropped."""
    out: RichText = []
    for item in items:
        if item["type"] == "text":
            for piece in split_text(item["text"]["content"]):
                out.append({**item, "text": {**item["text"], "content": piece}})
        else:
            out.append({k: v for k, v in item.items() if k != "plain_text"})
    return out


def wire_block(block: Block) -> list[Block]:
    """One canonical block (without children) as the request block(s) saying the same.

    A text block whose rich text needs more than 100 objects becomes several blocks of its type.
    """
    kind = block["type"]
    payload = copy.deepcopy(block[kind])
    for key in ("rich_text", "caption"):
        if key in payload:
            payload[key] = wire_rich_text(payload[key])
    if kind == "table_row":
        payload["cells"] = [wire_rich_text(cell) for cell in payload["cells"]]
    rich = payload.get("rich_text", [])
    if kind in TEXT_TYPES and len(rich) > MAX_ITEMS:
        return [
            {"type": kind, kind: {**payload, "rich_text": rich[start : start + MAX_ITEMS]}}
            for start in range(0, len(rich), MAX_ITEMS)
        ]
    return [{"type": kind, kind: payload}]


def update_body(block: Block) -> dict[str, Any]:
    """The PATCH body that gives an existing block of the same type this content."""
    (wired,) = wire_block(block)[:1]
    kind = block["type"]
    payload = dict(wired[kind])
    if kind in TEXT_TYPES:
        payload.setdefault("color", "default")
    if kind.startswith("heading_"):
        payload.setdefault("is_toggleable", False)
    if kind in TEXT_TYPES | {"code"} and "rich_text" in payload and len(payload["rich_text"]) > MAX_ITEMS:
        payload["rich_text"] = payload["rich_text"][:MAX_ITEMS]
    return {kind: payload}
