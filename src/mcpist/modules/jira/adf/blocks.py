"""Block-level ADF to Markdown and back: paragraphs, headings, lists, code, quotes, rules and tables.

A block Markdown cannot show (panel, expand, media, a task list, an empty paragraph, a table with merged
cells) is one line `<!-- adf:{...} -->`; attributes or block marks that a block's Markdown cannot carry (a
table's layout, a paragraph's alignment) go on a line `<!-- adf-block:{"attrs":...} -->` just before it.
"""

from __future__ import annotations

import re
from typing import Any

from ._common import BLOCK_MARKER, EXTRAS_MARKER, Node, canonical, load_marker, marker_json
from .inline import parse_inline, render_inline

# what each block's Markdown carries of its attrs; the rest goes in an `adf-block` line
_SAID = {"heading": {"level"}, "codeBlock": {"language"}, "orderedList": {"order"}}
_SIMPLE = {"paragraph", "heading", "bulletList", "orderedList", "codeBlock", "blockquote", "rule", "table"}
_LINE_START = re.compile(r"^(#{1,6}(\s|$)|[-+>|]|={3})")
_NUMBERED = re.compile(r"^(\d{1,9})([.)])")


def render_blocks(blocks: list[Any]) -> str:
    return "\n\n".join(_block(canonical(b)) for b in blocks)


def _block(node: Any) -> str:
    kind = node.get("type") if isinstance(node, dict) else None
    body = _plain(node) if kind in _SIMPLE else None
    if body is None:
        return f"<!-- adf:{marker_json(node)} -->"
    attrs = node.get("attrs", {})
    extras: Node = {}
    unsaid = {k: v for k, v in attrs.items() if k not in _SAID.get(str(kind), set())}
    if unsaid:
        extras["attrs"] = unsaid
    if node.get("marks"):
        extras["marks"] = node["marks"]
    return f"<!-- adf-block:{marker_json(extras)} -->\n{body}" if extras else body


def _lines_escaped(text: str) -> str:
    lines = text.split("\n")
    # what would start a heading, list, quote or table is escaped; `1.` as `1\.` (a digit takes no backslash)
    lines = ["\\" + line if _LINE_START.match(line) else _NUMBERED.sub(r"\1\\\2", line, count=1) for line in lines]
    return "\n".join(lines)


def _plain(node: Node) -> str | None:
    """The node's Markdown without its extras, or None when Markdown cannot show it."""
    kind, content, attrs = node["type"], node.get("content", []), node.get("attrs", {})
    if kind == "paragraph":
        return _lines_escaped(render_inline(content)) if content else None
    if kind == "heading":
        level = attrs.get("level")
        if not isinstance(level, int) or not 1 <= level <= 6 or not content:
            return None
        return "#" * level + " " + render_inline(content, cell=True)
    if kind == "rule":
        return "---" if not content else None
    if kind == "codeBlock":
        return _code(content, attrs.get("language"))
    if kind == "blockquote":
        inner = render_blocks(content) if content else None
        return None if inner is None else "\n".join(("> " + line).rstrip() for line in inner.split("\n"))
    if kind in ("bulletList", "orderedList"):
        return _list(node)
    return _table(node)


def _code(content: list[Any], language: Any) -> str | None:
    if language is not None and (not isinstance(language, str) or re.search(r"[\s`]", language) or not language):
        return None
    if any(not isinstance(c, dict) or set(c) != {"type", "text"} or c["type"] != "text" for c in content):
        return None
    text = "".join(c["text"] for c in content)
    longest = max((len(run) for run in re.findall(r"^`{3,}", text, re.M)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{language or ''}\n{text}\n{fence}" if text else f"{fence}{language or ''}\n{fence}"


def _list(node: Node) -> str | None:
    items = node.get("content", [])
    start = node.get("attrs", {}).get("order", 1)
    if not items or not isinstance(start, int) or start < 0:
        return None
    out = []
    for n, item in enumerate(items):
        if item.get("type") != "listItem" or set(item) != {"type", "content"}:
            return None
        first, *rest = item["content"]
        if first.get("type") != "paragraph" or set(first) != {"type", "content"}:
            return None
        bullet = "- " if node["type"] == "bulletList" else f"{start + n}. "
        pad = " " * len(bullet)
        text = bullet + _lines_escaped(render_inline(first["content"])).replace("\n", "\n" + pad)
        for block in rest:
            sep = "\n" if block.get("type") in ("bulletList", "orderedList") else "\n\n"
            text += sep + "\n".join((pad + line).rstrip() for line in _block(block).split("\n"))
        out.append(text)
    return "\n".join(out)


def _table(node: Node) -> str | None:
    rows = node.get("content", [])
    grid: list[list[str]] = []
    for r, row in enumerate(rows):
        if row.get("type") != "tableRow" or set(row) != {"type", "content"}:
            return None
        cells = []
        for cell in row["content"]:
            wanted = "tableHeader" if r == 0 else "tableCell"
            if cell.get("type") != wanted or set(cell) != {"type", "content"} or len(cell["content"]) != 1:
                return None
            para = cell["content"][0]
            if para.get("type") != "paragraph" or not set(para) <= {"type", "content"}:
                return None
            cells.append(render_inline(para.get("content", []), cell=True) or " ")
        grid.append(cells)
    if not grid or len({len(cells) for cells in grid}) != 1:
        return None
    lines = ["| " + " | ".join(cells) + " |" for cells in grid]
    lines.insert(1, "|" + "---|" * len(grid[0]))
    return "\n".join(lines)


# --- Markdown -> ADF -------------------------------------------------------------------------------------

_FENCE = re.compile(r"^(`{3,}|~{3,})([^\s`]*)\s*$")
_HEADING = re.compile(r"^(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})\s*$")
_ITEM = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])(?: +|$)(.*)$")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")


def parse_blocks(text: str) -> list[Node]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Node] = []
    extras: Node | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        block, i = _one(lines, i)
        if block is None:  # an adf-block line: it belongs to the next block
            found = EXTRAS_MARKER.match(line.strip())
            extras = load_marker(found.group(1)) if found else None
            continue
        if extras:
            if extras.get("attrs"):
                block["attrs"] = {**block.get("attrs", {}), **extras["attrs"]}
            if extras.get("marks"):
                block["marks"] = extras["marks"]
            extras = None
        blocks.append(block)
    return blocks


def _one(lines: list[str], i: int) -> tuple[Node | None, int]:
    line = lines[i]
    stripped = line.strip()
    if EXTRAS_MARKER.match(stripped):
        return None, i + 1
    found = BLOCK_MARKER.match(stripped)
    if found and (node := load_marker(found.group(1))) is not None:
        return node, i + 1
    if fence := _FENCE.match(stripped):
        return _parse_code(lines, i, fence)
    if heading := _HEADING.match(line):
        content = parse_inline(heading.group(2) or "")
        return {"type": "heading", "attrs": {"level": len(heading.group(1))}, "content": content}, i + 1
    if _RULE.match(stripped):
        return {"type": "rule"}, i + 1
    if stripped.startswith(">"):
        quoted = []
        while i < len(lines) and lines[i].strip().startswith(">"):
            quoted.append(re.sub(r"^\s*> ?", "", lines[i]))
            i += 1
        return {"type": "blockquote", "content": parse_blocks("\n".join(quoted))}, i
    if _ITEM.match(line):
        return _parse_list(lines, i)
    if stripped.startswith("|") and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1].strip()):
        return _parse_table(lines, i)
    para = [line]
    i += 1
    while i < len(lines) and lines[i].strip() and not _starts_block(lines, i):
        para.append(lines[i])
        i += 1
    return {"type": "paragraph", "content": parse_inline("\n".join(para))}, i


def _starts_block(lines: list[str], i: int) -> bool:
    line, stripped = lines[i], lines[i].strip()
    return bool(
        _FENCE.match(stripped)
        or _HEADING.match(line)
        or stripped.startswith(">")
        or _ITEM.match(line)
        or BLOCK_MARKER.match(stripped)
        or EXTRAS_MARKER.match(stripped)
    )


def _parse_code(lines: list[str], i: int, fence: re.Match[str]) -> tuple[Node, int]:
    mark, language = fence.group(1), fence.group(2)
    body: list[str] = []
    i += 1
    while i < len(lines) and not (lines[i].strip().startswith(mark[0] * len(mark)) and not lines[i].strip("`~ ")):
        body.append(lines[i])
        i += 1
    node: Node = {"type": "codeBlock"}
    if language:
        node["attrs"] = {"language": language}
    if body:
        node["content"] = [{"type": "text", "text": "\n".join(body)}]
    return node, i + 1


def _parse_list(lines: list[str], i: int) -> tuple[Node, int]:
    first = _ITEM.match(lines[i])
    assert first is not None
    ordered = first.group(2)[0].isdigit()
    node: Node = {"type": "orderedList" if ordered else "bulletList", "content": []}
    if ordered and int(first.group(2)[:-1]) != 1:
        node["attrs"] = {"order": int(first.group(2)[:-1])}
    while i < len(lines):
        item = _ITEM.match(lines[i])
        if item is None or item.group(2)[0].isdigit() != ordered:
            break
        indent = len(item.group(1)) + len(item.group(2)) + 1
        body = [item.group(3)]
        i += 1
        while i < len(lines):
            line = lines[i]
            if line.strip() and len(line) - len(line.lstrip(" ")) >= indent:
                body.append(line[indent:])
            elif not line.strip() and i + 1 < len(lines) and lines[i + 1].startswith(" " * indent):
                body.append("")
            elif line.strip() and not _starts_block(lines, i) and body[-1].strip() and len(body) == 1:
                body.append(line.strip())  # a lazy continuation of the item's first line
            else:
                break
            i += 1
        content = parse_blocks("\n".join(body)) or [{"type": "paragraph"}]
        node["content"].append({"type": "listItem", "content": content})
        if i < len(lines) and not lines[i].strip() and i + 1 < len(lines) and _ITEM.match(lines[i + 1]):
            i += 1  # a loose list: a blank line between items
    return node, i


def _cells(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)]


def _parse_table(lines: list[str], i: int) -> tuple[Node, int]:
    rows = [_cells(lines[i])]
    i += 2
    while i < len(lines) and lines[i].strip().startswith("|"):
        rows.append(_cells(lines[i]))
        i += 1
    width = len(rows[0])
    content = []
    for r, cells in enumerate(rows):
        cells = (cells + [""] * width)[:width]
        kind = "tableHeader" if r == 0 else "tableCell"
        row = []
        for cell in cells:
            para: Node = {"type": "paragraph"}
            inline = parse_inline(cell)
            if inline:
                para["content"] = inline
            row.append({"type": kind, "content": [para]})
        content.append({"type": "tableRow", "content": row})
    return {"type": "table", "content": content}, i
