"""Notion blocks -> Markdown that `markdown_to_blocks` reads back to the same blocks.

Each block is written in its Markdown form and parsed back on the spot; when the two differ (a code
block with bold in it, a heading whose colour Markdown has no word for and so on), the difference goes
into a trailing `<!-- notion:{...} -->`, and what even that cannot carry is written as a whole-block
marker. So nothing is dropped, and the round trip holds block by block.
"""

from __future__ import annotations

from typing import Any

from .canonical import MEDIA_TYPES, OWN_PAGES, Block, canonical_block, head
from .inline_render import Unrepresentable, escape, marker, render_inline
from .parse import parse_blocks

LISTS = frozenset({"bulleted_list_item", "numbered_list_item", "to_do"})
_LINK_TYPES = (MEDIA_TYPES - {"image"}) | OWN_PAGES | {"bookmark", "embed", "link_preview"}
_HEADINGS = {"heading_1": "#", "heading_2": "##", "heading_3": "###"}


def blocks_to_markdown(blocks: list[Block]) -> str:
    """Blocks (as Notion answers them, with the `children` the tree reader attaches) as Markdown."""
    return render_blocks([canonical_block(block) for block in blocks])


def render_blocks(blocks: list[Block]) -> str:
    """Canonical blocks as Markdown: list items one per line, other blocks separated by a blank line."""
    parts: list[str] = []
    number = 0
    previous: str | None = None
    for block in blocks:
        kind = block["type"]
        if kind == "numbered_list_item":
            start = block[kind].get("list_start_index")
            number = number + 1 if previous == kind else (start if isinstance(start, int) else 1)
        if parts:
            parts.append("\n" if previous in LISTS and kind in LISTS else "\n\n")
        parts.append(render_block(block, number))
        previous = kind
    return "".join(parts)


def render_block(block: Block, number: int = 1) -> str:
    """One canonical block and its children."""
    lines, indent, closer = _head(block, number)
    children = [] if block["type"] == "table" and len(lines) > 1 else block.get("children", [])
    if children:
        pad = " " * indent
        lines += [pad + line if line else "" for line in render_blocks(children).split("\n")]
    if closer:
        lines.append(closer)
    return "\n".join(lines)


def render_head(block: Block) -> str:
    """The block's own line(s) without its children: what `get_block_children` shows for it."""
    lines, _, closer = _head(head(block), 1)
    return "\n".join([*lines, *([closer] if closer else [])])


def _head(block: Block, number: int) -> tuple[list[str], int, str | None]:
    """The block's first line(s), how deep its children go, and its closing tag; checked by parsing back."""
    expected = block if block["type"] == "table" else head(block)
    try:
        lines, indent, closer, attrs = _form(block, number)
    except Unrepresentable:
        pass
    else:
        if attrs:
            lines[0] += f" <!-- notion:{marker(attrs)} -->"
        if parse_blocks([*lines, *([closer] if closer else [])]) == [expected]:
            return lines, indent, closer
    return [f"<!-- notion:{marker(head(block))} -->"], 2, None


def _form(block: Block, number: int) -> tuple[list[str], int, str | None, dict[str, Any]]:
    kind = block["type"]
    data: dict[str, Any] = block[kind]
    rich = data.get("rich_text", [])
    attrs = {k: v for k, v in data.items() if k in ("color", "list_start_index", "list_format")}
    if kind == "paragraph":
        return (render_inline(rich).split("\n") if rich else ["<empty-block/>"]), 2, None, attrs
    if kind in _HEADINGS:
        if data.get("is_toggleable"):
            attrs["is_toggleable"] = True
        return [_joined(_HEADINGS[kind], render_inline(rich, line=True))], 2, None, attrs
    if kind == "bulleted_list_item":
        return [_joined("-", render_inline(rich, line=True))], 2, None, attrs
    if kind == "numbered_list_item":
        prefix = f"{number}."
        return [_joined(prefix, render_inline(rich, line=True))], len(prefix) + 1, None, attrs
    if kind == "to_do":
        box = "- [x]" if data.get("checked") else "- [ ]"
        return [_joined(box, render_inline(rich, line=True))], 2, None, attrs
    if kind in ("quote", "callout"):
        lines = [_joined(">", line) for line in render_inline(rich).split("\n")]
        if kind == "callout":
            attrs = {"type": "callout", **({"icon": data["icon"]} if "icon" in data else {}), **attrs}
        return lines, 2, None, attrs
    if kind == "toggle":
        return [f"<details><summary>{render_inline(rich, line=True)}</summary>"], 2, "</details>", attrs
    if kind == "code":
        return _code(data)
    if kind == "equation":
        expression = data["expression"]
        if any(line.strip() == "$$" for line in expression.split("\n")):
            raise Unrepresentable(kind)
        return ["$$", *([expression] if expression else []), "$$"], 2, None, {}
    if kind == "divider":
        return ["---"], 2, None, {}
    if kind == "table":
        return _table(block)
    if kind == "image":
        url, more = _source(data)
        return [f"![{render_inline(data.get('caption', []), line=True)}]({_url(url)})"], 2, None, more
    if kind in _LINK_TYPES:
        return _link_line(block)
    if kind in ("column_list", "column", "synced_block"):
        tag = {"column_list": "columns", "column": "column", "synced_block": "synced_block"}[kind]
        return [f"<{tag}>"], 2, f"</{tag}>", {k: v for k, v in data.items() if v is not None}
    raise Unrepresentable(kind)


def _joined(prefix: str, text: str) -> str:
    return f"{prefix} {text}" if text else prefix


def _code(data: dict[str, Any]) -> tuple[list[str], int, str | None, dict[str, Any]]:
    rich = data.get("rich_text", [])
    if any(item["type"] != "text" or "annotations" in item or "link" in item["text"] for item in rich):
        raise Unrepresentable("formatted code")
    content = "".join(item["text"]["content"] for item in rich)
    # a line of backticks, however indented, would close a shorter fence
    runs = (len(line.strip()) - len(line.strip().lstrip("`")) for line in content.split("\n"))
    longest = max(runs, default=0)
    fence = "`" * max(3, longest + 1)
    lang = "" if data.get("language") == "plain text" else str(data.get("language", ""))
    attrs = {"caption": data["caption"]} if "caption" in data else {}
    body = content.split("\n") if content else []
    return [fence + lang, *body, fence], 2, None, attrs


def _table(block: Block) -> tuple[list[str], int, str | None, dict[str, Any]]:
    data = block["table"]
    rows = [child["table_row"]["cells"] for child in block.get("children", []) if child["type"] == "table_row"]
    width = data["table_width"]
    if not rows or any(len(cells) != width for cells in rows) or len(rows) != len(block.get("children", [])):
        raise Unrepresentable("table")
    lines = ["| " + " | ".join(render_inline(cell, line=True, table=True) for cell in cells) + " |" for cells in rows]
    lines.insert(1, "|" + "|".join(" --- " for _ in range(width)) + "|")
    attrs: dict[str, Any] = {}
    if not data["has_column_header"]:
        attrs["has_column_header"] = False
    if data["has_row_header"]:
        attrs["has_row_header"] = True
    return lines, 2, None, attrs


def _source(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    source = data.get("type")
    if source not in ("external", "file"):
        raise Unrepresentable("upload")
    return str(data[source]["url"]), ({"hosted": True} if source == "file" else {})


def _link_line(block: Block) -> tuple[list[str], int, str | None, dict[str, Any]]:
    kind = block["type"]
    data = block[kind]
    attrs: dict[str, Any] = {"type": kind}
    if kind in OWN_PAGES:
        if "id" not in block:
            raise Unrepresentable(kind)
        url = "https://www.notion.so/" + str(block["id"]).replace("-", "")
        return [f"[{escape(data['title'], line=True, line_start=False)}]({url})"], 2, None, attrs
    if kind in MEDIA_TYPES:
        url, more = _source(data)
        attrs.update(more)
        if "name" in data:
            attrs["name"] = data["name"]
    else:
        url = data["url"]
    caption = render_inline(data.get("caption", []), line=True, line_start=False)
    return [f"[{caption}]({_url(url)})"], 2, None, attrs


def _url(url: str) -> str:
    if not url or any(c in url for c in "<>\n"):
        raise Unrepresentable("url")
    plain = not any(c.isspace() or c in "()\\" for c in url)
    return url if plain else f"<{url}>"
