"""Notion rich text -> Markdown inline text that `parse_inline` reads back to the same rich text.

Plain Markdown first (`**bold**`, `*italic*`, `~~strike~~`, `` `code` ``, links); when its emphasis rules
cannot say it (a bold run that ends in a space, say), HTML tags (`<b>`, `<i>`, `<s>`, `<code>`); what
neither can carry (mentions, odd equations) goes in a `<!-- notion:{...} -->text<!-- /notion -->` marker.
Every rendering is parsed back before it is returned, so the round trip is checked, not hoped for.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .canonical import RichText, canonical_rich_text
from .inline_parse import parse_inline

_ALWAYS = frozenset("\\`*[]<~$")
_LINE_START = frozenset("#>-+=|")
_ORDER = ("color", "link", "underline", "bold", "italic", "strikethrough")
_MD = {"bold": ("**", "**"), "italic": ("*", "*"), "strikethrough": ("~~", "~~")}
_HTML = {"bold": ("<b>", "</b>"), "italic": ("<i>", "</i>"), "strikethrough": ("<s>", "</s>")}
_URL_PLAIN = re.compile(r"[^\s()<>\\]+")
_URL_ANGLED = re.compile(r"[^<>\n]+")


class Unrepresentable(ValueError):
    """Markdown cannot carry this rich text exactly; the caller keeps it as a JSON marker."""


def render_inline(items: RichText, *, line: bool = False, table: bool = False, line_start: bool = True) -> str:
    """`items` (canonical) as Markdown; `line`: no line breaks (they become `<br>`); `table`: `|` escaped.

    Raises:
        Unrepresentable: no Markdown this module writes reads back as `items`.
    """
    want = canonical_rich_text(items)
    for html in (False, True):
        text = _render(want, html=html, line=line, table=table, line_start=line_start)
        if text is not None and parse_inline(text) == want:
            return text
    raise Unrepresentable("rich text")


def escape(text: str, *, line: bool = False, table: bool = False, line_start: bool = True) -> str:
    """Plain text escaped so that Markdown reads it as the same text."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        at_start = (i == 0 and line_start) or (i > 0 and text[i - 1] == "\n")
        if ch == "\n":
            out.append("<br>" if line else "\n")
        elif ch in _ALWAYS or (table and ch == "|"):
            out.append("\\" + ch)
        elif ch == "_":
            before = text[i - 1] if i > 0 else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            out.append("_" if before.isalnum() and after.isalnum() else "\\_")
        elif ch == "!" and i + 1 == len(text):
            out.append("\\!")  # the next run may open a link: "![" would read as an image
        elif at_start and (ch in _LINE_START or ch == " "):
            out.append("\\" + ch)
        elif at_start and ch.isdigit():
            digits = re.match(r"\d+", text[i:])
            assert digits is not None
            out.append(digits.group(0))
            i += len(digits.group(0))
            if i < len(text) and text[i] in ".)":
                out.append("\\" + text[i])
                i += 1
            continue
        else:
            out.append(ch)
        i += 1
    if table and out and out[-1] == " ":
        out[-1] = "\\ "  # cells are trimmed when read
    return "".join(out)


def marker(item: dict[str, Any]) -> str:
    """The JSON of `item` for a `<!-- notion:... -->` marker: one line, no `<` or `>` to end the comment early."""
    raw = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
    return raw.replace("<", "\\u003c").replace(">", "\\u003e")


def _render(items: RichText, *, html: bool, line: bool, table: bool, line_start: bool) -> str | None:
    out: list[str] = []
    stack: list[tuple[tuple[str, Any], str]] = []

    def at_line_start() -> bool:
        tail = "".join(out[-2:])
        return (not tail and line_start) or tail.endswith("\n")

    for item in items:
        wanted = _marks(item)
        keep = 0
        while keep < len(stack) and stack[keep][0] in wanted:
            keep += 1
        while len(stack) > keep:
            out.append(stack.pop()[1])
        content = _content(item, html=html, line=line, table=table, line_start=at_line_start())
        if content is None:
            return None
        for mark in wanted:
            if any(entry[0] == mark for entry in stack):
                continue
            opening, closing = _delimiters(mark, html)
            if opening is None or closing is None:
                return None
            if not html and mark[0] in _MD and content[:1].isspace():
                return None  # emphasis cannot open before a space; the HTML rendering can
            out.append(opening)
            stack.append((mark, closing))
        out.append(content)
    while stack:
        out.append(stack.pop()[1])
    return "".join(out)


def _marks(item: dict[str, Any]) -> list[tuple[str, Any]]:
    annotations = item.get("annotations", {})
    found: list[tuple[str, Any]] = []
    for name in _ORDER:
        if name == "color" and annotations.get("color"):
            found.append(("color", annotations["color"]))
        elif name == "link" and item["type"] == "text" and item["text"].get("link"):
            found.append(("link", item["text"]["link"]["url"]))
        elif annotations.get(name) is True:
            found.append((name, True))
    return found


def _delimiters(mark: tuple[str, Any], html: bool) -> tuple[str | None, str | None]:
    name, value = mark
    if name == "color":
        return (f'<span color="{value}">', "</span>") if re.fullmatch(r"[a-z_]+", value) else (None, None)
    if name == "link":
        if _URL_PLAIN.fullmatch(value) and value.count("(") == value.count(")") == 0:
            return "[", f"]({value})"
        return ("[", f"](<{value}>)") if _URL_ANGLED.fullmatch(value) else (None, None)
    if name == "underline":
        return "<u>", "</u>"
    return (_HTML if html else _MD)[name]


def _content(item: dict[str, Any], *, html: bool, line: bool, table: bool, line_start: bool) -> str | None:
    kind = item["type"]
    if kind == "text":
        text = item["text"]["content"]
        if not item.get("annotations", {}).get("code"):
            return escape(text, line=line, table=table, line_start=line_start)
        if not html and "\n" not in text and not (table and "|" in text) and text.strip(" "):
            longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
            fence = "`" * (longest + 1)
            pad = " " if text[0] in "` " or text[-1] in "` " else ""
            return f"{fence}{pad}{text}{pad}{fence}"
        return "<code>" + escape(text, line=line, table=table, line_start=line_start) + "</code>"
    if kind == "equation":
        expression = item["equation"]["expression"]
        simple = expression and "$" not in expression and "\n" not in expression
        if simple and not (table and "|" in expression) and expression.strip() == expression:
            return f"${expression}$"
        return _marked(item, expression, line=line, table=table)
    return _marked(item, str(item.get("plain_text", "")), line=line, table=table)


def _marked(item: dict[str, Any], visible: str, *, line: bool, table: bool) -> str:
    bare = {k: v for k, v in item.items() if k not in ("annotations", "plain_text")}
    shown = escape(visible, line=True, table=table, line_start=False)
    return f"<!-- notion:{marker(bare)} -->{shown}<!-- /notion -->"
