"""Markdown (the dialect `render` writes, and ordinary Markdown an LLM writes) -> Notion blocks.

Nesting is by indentation: lines indented more than a block's first line are its children. The
`<details>`, `<columns>`, `<column>` and `<synced_block>` tags enclose theirs. A trailing
`<!-- notion:{...} -->` on a block's first line holds what Markdown cannot say (colour, icon, the
block type when it is not the Markdown's own), and a line that is only such a marker is a whole block.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .canonical import MEDIA_TYPES, OWN_PAGES, Block, canonical_block
from .inline_parse import closing_bracket, parse_inline, unescape

_FENCE = re.compile(r"(`{3,}|~{3,})(.*)$")
_BLOCK_MARKER = re.compile(r"<!-- notion:(\{[^<>\n]*\}) -->")
_HEADING = re.compile(r"(#{1,6})(?:[ \t]+(.*)|)$")
_DIVIDER = re.compile(r"(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TODO = re.compile(r"[-*+][ \t]+\[([ xX])\](?:[ \t]+(.*)|)$")
_BULLET = re.compile(r"[-*+](?:[ \t]+(.*)|)$")
_NUMBERED = re.compile(r"(\d{1,9})[.)](?:[ \t]+(.*)|)$")
_TABLE_RULE = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_DETAILS = re.compile(r"<details(?:\s[^>]*)?>(?:<summary>(.*)</summary>)?$")
_SUMMARY = re.compile(r"<summary>(.*)</summary>$")
_CONTAINERS = {"<columns>": "column_list", "<column>": "column", "<synced_block>": "synced_block"}
_STARTS = re.compile(
    r"(`{3}|~{3}|\$\$|<!-- notion:|<empty-block|</?(details|summary|columns|column|synced_block)\b|>|\|)"
)
_LINK_TYPES = MEDIA_TYPES | OWN_PAGES | {"bookmark", "embed", "link_preview"}
_ID = re.compile(r"[0-9a-fA-F]{32}")

# Notion's code languages, and the names Markdown writers use for some of them
# fmt: off
LANGUAGES = frozenset({
    "abap", "abc", "agda", "arduino", "ascii art", "assembly", "bash", "basic", "bnf", "c", "c#", "c++", "clojure",
    "coffeescript", "coq", "css", "dart", "dhall", "diff", "docker", "ebnf", "elixir", "elm", "erlang", "f#", "flow",
    "fortran", "gherkin", "glsl", "go", "graphql", "groovy", "haskell", "hcl", "html", "idris", "java", "javascript",
    "json", "julia", "kotlin", "latex", "less", "lisp", "livescript", "llvm ir", "lua", "makefile", "markdown",
    "markup", "matlab", "mathematica", "mermaid", "nix", "notion formula", "objective-c", "ocaml", "pascal", "perl",
    "php", "plain text", "powershell", "prolog", "protobuf", "purescript", "python", "r", "racket", "reason", "ruby",
    "rust", "sass", "scala", "scheme", "scss", "shell", "smalltalk", "solidity", "sql", "swift", "toml", "typescript",
    "vb.net", "verilog", "vhdl", "visual basic", "webassembly", "xml", "yaml", "java/c/c++/c#",
})
_ALIASES = {
    "py": "python", "js": "javascript", "jsx": "javascript", "ts": "typescript", "tsx": "typescript",
    "sh": "shell", "zsh": "shell", "console": "shell", "yml": "yaml", "md": "markdown", "rb": "ruby",
    "rs": "rust", "kt": "kotlin", "cs": "c#", "csharp": "c#", "cpp": "c++", "dockerfile": "docker",
    "tf": "hcl", "ps1": "powershell", "pwsh": "powershell", "objc": "objective-c", "text": "plain text",
    "txt": "plain text", "plaintext": "plain text", "jsonc": "json", "json5": "json", "proto": "protobuf",
    "golang": "go", "make": "makefile", "tex": "latex", "htm": "html", "vb": "visual basic",
}
# fmt: on


def markdown_to_blocks(markdown: str) -> list[Block]:
    """The blocks `markdown` describes, in canonical form (children nested under `children`)."""
    return _parse(dedent(markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n")))


def language(info: str) -> str:
    """The Notion code language for a fence's info string ("plain text" when unknown)."""
    name = info.strip().lower()
    if name in LANGUAGES:
        return name
    first = name.split(" ")[0] if name else ""
    if first in LANGUAGES:
        return first
    return _ALIASES.get(first, "plain text")


def parse_blocks(lines: list[str]) -> list[Block]:
    return _parse(lines)


def _parse(lines: list[str]) -> list[Block]:
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        block, i = _block(lines, i)
        blocks.append(block)
    return blocks


def _block(lines: list[str], i: int) -> tuple[Block, int]:
    indent = _indent(lines[i])
    text = lines[i][indent:].rstrip("\n")
    if m := _BLOCK_MARKER.fullmatch(text.rstrip()):
        raw = _json(m.group(1))
        if raw is not None and isinstance(raw.get("type"), str):
            return _with_children(canonical_block(raw), lines, i + 1, indent)
    text, attrs = split_attrs(text)
    if m := _FENCE.match(text):
        return _code(lines, i, indent, m, attrs)
    if text.strip() == "$$" or re.fullmatch(r"\$\$.+\$\$", text.strip()):
        return _equation(lines, i, indent, text.strip(), attrs)
    if text.strip() in ("<empty-block/>", "<empty-block>"):
        return _with_children(_build("paragraph", {"rich_text": []}, attrs), lines, i + 1, indent)
    if m := _DETAILS.match(text.strip()):
        return _details(lines, i, indent, m.group(1), attrs)
    if text.strip() in _CONTAINERS:
        return _container(lines, i, indent, text.strip(), attrs)
    if m := _HEADING.match(text):
        kind = f"heading_{min(len(m.group(1)), 3)}"
        return _with_children(_build(kind, _rich(m.group(2)), attrs), lines, i + 1, indent)
    if _DIVIDER.match(text):
        return _with_children(_build("divider", {}, attrs), lines, i + 1, indent)
    if m := _TODO.match(text):
        payload = {**_rich(m.group(2)), "checked": m.group(1) != " "}
        return _with_children(_build("to_do", payload, attrs), lines, i + 1, indent)
    if m := _BULLET.match(text):
        return _with_children(_build("bulleted_list_item", _rich(m.group(1)), attrs), lines, i + 1, indent)
    if m := _NUMBERED.match(text):
        return _with_children(_build("numbered_list_item", _rich(m.group(2)), attrs), lines, i + 1, indent)
    if text.startswith(">"):
        return _quote(lines, i, indent, text, attrs)
    if text.startswith("|") and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1][indent:]):
        return _table(lines, i, indent, text, attrs)
    if text.startswith("!["):
        link = split_link(text[1:])
        if link is not None:
            block = _media("image", link, attrs)
            return _with_children(block, lines, i + 1, indent)
    if attrs.get("type") in _LINK_TYPES:
        link = split_link(text)
        if link is not None:
            return _with_children(_media(str(attrs["type"]), link, attrs), lines, i + 1, indent)
    return _paragraph(lines, i, indent, text, attrs)


def split_attrs(text: str) -> tuple[str, dict[str, Any]]:
    """A line without its trailing `<!-- notion:{...} -->`, and what the marker holds."""
    start = text.rfind("<!-- notion:")
    if start == -1:
        return text, {}
    m = _BLOCK_MARKER.fullmatch(text[start:].rstrip())
    attrs = _json(m.group(1)) if m else None
    if attrs is None:
        return text, {}
    rest = text[:start]
    return (rest[:-1] if rest.endswith(" ") else rest), attrs


def _json(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _rich(src: str | None) -> dict[str, Any]:
    return {"rich_text": parse_inline(src or "")}


def _build(kind: str, payload: dict[str, Any], attrs: dict[str, Any]) -> Block:
    attrs = dict(attrs)
    override = attrs.pop("type", None)
    if isinstance(override, str) and override:
        kind = override
    payload = {**payload, **attrs}
    return canonical_block({"type": kind, kind: payload})


def _with_children(block: Block, lines: list[str], start: int, indent: int) -> tuple[Block, int]:
    end = _region(lines, start, indent)
    children = _parse(dedent(lines[start:end]))
    if children:
        block["children"] = children
    return block, end


def _region(lines: list[str], start: int, indent: int) -> int:
    """Where the lines indented deeper than `indent` (blank lines between them included) end."""
    end = j = start
    while j < len(lines):
        if not lines[j].strip():
            j += 1
            continue
        if _indent(lines[j]) <= indent:
            break
        j += 1
        end = j
    return end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def dedent(lines: list[str]) -> list[str]:
    """Lines with their common indentation removed (whitespace-only lines keep what is beyond it)."""
    depths = [_indent(line) for line in lines if line.strip()]
    cut = min(depths, default=0)
    return [line[min(cut, _indent(line)) :] for line in lines]


def _paragraph(lines: list[str], i: int, indent: int, text: str, attrs: dict[str, Any]) -> tuple[Block, int]:
    parts = [text]
    j = i + 1
    while j < len(lines) and lines[j].strip() and _indent(lines[j]) == indent:
        following = lines[j][indent:]
        if starts_block(following):
            break
        parts.append(following)
        j += 1
    return _with_children(_build("paragraph", _rich("\n".join(parts)), attrs), lines, j, indent)


def starts_block(text: str) -> bool:
    """Whether a line of this text would open a block of its own rather than continue a paragraph."""
    return bool(
        _STARTS.match(text)
        or _HEADING.match(text)
        or _DIVIDER.match(text)
        or _BULLET.match(text)
        or _NUMBERED.match(text)
        or text.startswith("![")
    )


def _quote(lines: list[str], i: int, indent: int, text: str, attrs: dict[str, Any]) -> tuple[Block, int]:
    parts = [text]
    j = i + 1
    while j < len(lines) and _indent(lines[j]) == indent and lines[j][indent:].startswith(">"):
        parts.append(lines[j][indent:])
        j += 1
    body = "\n".join(part[2:] if part.startswith("> ") else part[1:] for part in parts)
    return _with_children(_build("quote", _rich(body), attrs), lines, j, indent)


def _code(lines: list[str], i: int, indent: int, m: re.Match[str], attrs: dict[str, Any]) -> tuple[Block, int]:
    fence = m.group(1)
    body: list[str] = []
    j = i + 1
    while j < len(lines):
        stripped = lines[j].strip()
        if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
            break
        body.append(lines[j][min(indent, _indent(lines[j])) :])
        j += 1
    content = "\n".join(body)
    payload = {"rich_text": [{"type": "text", "text": {"content": content}}], "language": language(m.group(2))}
    return _with_children(_build("code", payload, attrs), lines, min(j + 1, len(lines)), indent)


def _equation(lines: list[str], i: int, indent: int, text: str, attrs: dict[str, Any]) -> tuple[Block, int]:
    if text != "$$":
        return _with_children(_build("equation", {"expression": text[2:-2].strip()}, attrs), lines, i + 1, indent)
    body: list[str] = []
    j = i + 1
    while j < len(lines) and lines[j].strip() != "$$":
        body.append(lines[j][min(indent, _indent(lines[j])) :])
        j += 1
    block = _build("equation", {"expression": "\n".join(body)}, attrs)
    return _with_children(block, lines, min(j + 1, len(lines)), indent)


def _closing(lines: list[str], start: int, opener: re.Pattern[str], closer: str) -> int:
    depth = 1
    j = start
    while j < len(lines):
        stripped = split_attrs(lines[j].strip())[0]
        if opener.match(stripped):
            depth += 1
        elif stripped == closer:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return j


def _details(lines: list[str], i: int, indent: int, summary: str | None, attrs: dict[str, Any]) -> tuple[Block, int]:
    start = i + 1
    if summary is None:
        while start < len(lines) and not lines[start].strip():
            start += 1
        m = _SUMMARY.match(lines[start].strip()) if start < len(lines) else None
        if m is not None:
            summary, start = m.group(1), start + 1
    end = _closing(lines, start, re.compile(r"<details\b"), "</details>")
    block = _build("toggle", _rich(summary), attrs)
    children = _parse(dedent(lines[start:end]))
    if children:
        block["children"] = children
    return block, min(end + 1, len(lines))


def _container(lines: list[str], i: int, indent: int, tag: str, attrs: dict[str, Any]) -> tuple[Block, int]:
    kind = _CONTAINERS[tag]
    closer = "</" + tag[1:]
    end = _closing(lines, i + 1, re.compile(re.escape(tag)), closer)
    block = _build(kind, {}, attrs)
    children = _parse(dedent(lines[i + 1 : end]))
    if kind == "column_list":  # a stray block inside <columns> gets a column of its own
        children = [c if c["type"] == "column" else {"type": "column", "column": {}, "children": [c]} for c in children]
    if children:
        block["children"] = children
    return block, min(end + 1, len(lines))


def _table(lines: list[str], i: int, indent: int, text: str, attrs: dict[str, Any]) -> tuple[Block, int]:
    rows = [split_cells(text)]
    j = i + 2
    while j < len(lines) and _indent(lines[j]) == indent and lines[j][indent:].startswith("|"):
        rows.append(split_cells(lines[j][indent:]))
        j += 1
    width = max(len(row) for row in rows)
    payload = {"table_width": width, "has_column_header": True, "has_row_header": False}
    block = _build("table", payload, attrs)
    block["children"] = [
        {"type": "table_row", "table_row": {"cells": [parse_inline(cell) for cell in row + [""] * (width - len(row))]}}
        for row in rows
    ]
    return block, j


def split_cells(row: str) -> list[str]:
    """The cells of a `| a | b |` row, trimmed (a trailing `\\ ` is a kept space)."""
    cells: list[str] = []
    current: list[str] = []
    i = 1 if row.startswith("|") else 0
    while i < len(row):
        ch = row[i]
        if ch == "\\" and i + 1 < len(row):
            current.append(row[i : i + 2])
            i += 2
            continue
        if ch == "|":
            cells.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    tail = "".join(current)
    if tail.strip():
        cells.append(tail)
    return [_trim(cell) for cell in cells]


def _trim(cell: str) -> str:
    cell = cell.lstrip(" \t")
    stripped = cell.rstrip(" \t")
    if stripped.endswith("\\") and len(stripped) < len(cell) and not stripped.endswith("\\\\"):
        return stripped + " "
    return stripped


def split_link(text: str) -> tuple[str, str] | None:
    """(link text, URL) when `text` is exactly one `[text](url)`."""
    if not text.startswith("["):
        return None
    close = closing_bracket(text, 0)
    if close is None or not text.startswith("(", close + 1) or not text.endswith(")"):
        return None
    url = text[close + 2 : -1]
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    elif any(c.isspace() for c in url):
        return None
    else:
        url = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", url)
    return text[1:close], url


def _media(kind: str, link: tuple[str, str], attrs: dict[str, Any]) -> Block:
    caption_src, url = link
    attrs = {k: v for k, v in attrs.items() if k != "type"}
    caption = [_unlinked(item) for item in parse_inline(caption_src)]
    if kind in OWN_PAGES:
        found = _ID.findall(url.split("?")[0].replace("-", ""))
        block = canonical_block({"type": kind, kind: {"title": unescape(caption_src)}})
        if found:
            raw = found[-1].lower()
            block["id"] = f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
        return block
    if kind in ("bookmark", "embed", "link_preview"):
        return _build(kind, {"url": url, "caption": caption}, attrs)
    source = "file" if attrs.pop("hosted", False) else "external"
    return _build(kind, {"type": source, source: {"url": url}, "caption": caption}, attrs)


def _unlinked(item: dict[str, Any]) -> dict[str, Any]:
    if item["type"] != "text" or "link" not in item["text"]:
        return item
    return {**item, "text": {"content": item["text"]["content"]}}
