"""Markdown inline text -> Notion rich text.

CommonMark's emphasis rules (delimiter runs, flanking, the rule of 3), GFM `~~strike~~`, links and
autolinks, code spans, `$equation$`, and the few HTML tags the renderer falls back to: `<b>`, `<i>`,
`<s>`, `<u>`, `<code>`, `<span color="...">`, `<br>`, plus the `<!-- notion:{...} -->text<!-- /notion -->`
marker for mentions. CJK letters and punctuation count as letters when deciding flanking, so
`**「強調」**です` is bold as a Japanese writer means it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from .canonical import RichText, canonical_rich_text

_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_TAGS = {"b": "bold", "strong": "bold", "i": "italic", "em": "italic", "s": "strikethrough", "del": "strikethrough"}
_TAGS["u"] = "underline"
_TAG = re.compile(r"<(/?)(b|strong|i|em|s|del|u|span)(?:\s+color=\"([a-z_]+)\")?\s*>")
_BR = re.compile(r"<br\s*/?>")
_MARKER = re.compile(r"<!-- notion:(\{[^<>\n]*\}) -->")
_MARKER_END = "<!-- /notion -->"
_AUTOLINK = re.compile(r"<(https?://[^\s<>]+|mailto:[^\s<>]+)>")
_SPECIAL = frozenset("\\`$<[*_~\n")


@dataclass
class _Delim:
    char: str
    length: int
    can_open: bool
    can_close: bool
    remaining: int = 0

    def __post_init__(self) -> None:
        self.remaining = self.length


@dataclass
class _Tag:
    mark: str
    value: str | None
    closing: bool
    source: str


@dataclass
class _Atom:
    items: RichText = field(default_factory=list)


Node = str | _Delim | _Tag | _Atom


def parse_inline(src: str) -> RichText:
    """The rich text `src` means, merged into canonical runs."""
    nodes = _tokenize(src)
    pairs = _match_tags(nodes) + _match_delims(nodes)
    items: RichText = []
    for index, node in enumerate(nodes):
        marks = [pair for pair in pairs if pair[0] < index < pair[1]]
        annotations = _annotations(marks)
        if isinstance(node, str):
            items.append(_with(({"type": "text", "text": {"content": node}}), annotations))
        elif isinstance(node, _Delim):
            if node.remaining:
                items.append(_with({"type": "text", "text": {"content": node.char * node.remaining}}, annotations))
        elif isinstance(node, _Tag):
            if node.source:  # an unmatched tag is text
                items.append(_with({"type": "text", "text": {"content": node.source}}, annotations))
        else:
            items.extend(_with(item, annotations) for item in node.items)
    return canonical_rich_text(items)


def _with(item: dict[str, Any], outer: dict[str, Any]) -> dict[str, Any]:
    if not outer:
        return item
    inner = item.get("annotations", {})
    merged = {**outer, **inner}
    return {**item, "annotations": merged}


def _annotations(marks: list[tuple[int, int, str, str | None]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    color_at = -1
    for start, _, mark, value in marks:
        if mark == "color":
            if start > color_at and value:
                out["color"], color_at = value, start
        else:
            out[mark] = True
    return out


# --- tokens ---------------------------------------------------------------------------------------


def _tokenize(src: str) -> list[Node]:
    nodes: list[Node] = []
    text: list[str] = []
    i = 0

    def flush() -> None:
        if text:
            nodes.append("".join(text))
            text.clear()

    while i < len(src):
        ch = src[i]
        if ch not in _SPECIAL:
            text.append(ch)
            i += 1
            continue
        if ch == "\\":
            nxt = src[i + 1] if i + 1 < len(src) else ""
            if nxt in _PUNCT or nxt == " ":
                text.append(nxt)
                i += 2
            else:
                text.append("\\")
                i += 1
            continue
        if ch == "\n":
            text.append("\n")
            i += 1
            continue
        found = _special(src, i)
        if found is None:
            text.append(ch)
            i += 1
            continue
        node, i = found
        flush()
        nodes.append(node)
    flush()
    return nodes


def _special(src: str, i: int) -> tuple[Node, int] | None:
    ch = src[i]
    if ch == "`":
        return _code_span(src, i)
    if ch == "$":
        return _equation(src, i)
    if ch == "<":
        return _html(src, i)
    if ch == "[":
        return _link(src, i)
    run = len(src[i:]) - len(src[i:].lstrip(ch))
    if ch == "~" and run != 2:
        return ("~" * run, i + run)
    before = src[i - 1] if i > 0 else None
    after = src[i + run] if i + run < len(src) else None
    left = _flanking(after, before)
    right = _flanking(before, after)
    if ch == "_":
        return (_Delim(ch, run, left and (not right or _punct(before)), right and (not left or _punct(after))), i + run)
    return (_Delim(ch, run, left, right), i + run)


def _flanking(inside: str | None, outside: str | None) -> bool:
    """Left-flanking when `inside` follows the run (right-flanking with the roles swapped)."""
    if inside is None or inside.isspace():
        return False
    return not _punct(inside) or outside is None or outside.isspace() or _punct(outside)


def _punct(ch: str | None) -> bool:
    if ch is None:
        return False
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return False  # CJK punctuation sits between letters without spaces
    return ch in _PUNCT or unicodedata.category(ch)[0] in ("P", "S")


def _code_span(src: str, i: int) -> tuple[Node, int]:
    run = len(src[i:]) - len(src[i:].lstrip("`"))
    j = i + run
    while True:
        j = src.find("`", j)
        if j == -1:
            return ("`" * run, i + run)
        close = len(src[j:]) - len(src[j:].lstrip("`"))
        if close == run:
            content = src[i + run : j]
            if len(content) >= 2 and content[0] == content[-1] == " " and content.strip(" "):
                content = content[1:-1]
            return (_Atom([{"type": "text", "text": {"content": content}, "annotations": {"code": True}}]), j + run)
        j += close


def _equation(src: str, i: int) -> tuple[Node, int] | None:
    if i + 1 >= len(src) or src[i + 1].isspace() or src[i + 1] == "$":
        return None
    j = i + 1
    while True:
        j = src.find("$", j)
        if j == -1 or "\n" in src[i + 1 : j]:
            return None
        following = src[j + 1] if j + 1 < len(src) else ""
        if not src[j - 1].isspace() and src[j - 1] != "\\" and not following.isdigit():
            return (_Atom([{"type": "equation", "equation": {"expression": src[i + 1 : j]}}]), j + 1)
        j += 1


def _html(src: str, i: int) -> tuple[Node, int] | None:
    if m := _MARKER.match(src, i):
        end = src.find(_MARKER_END, m.end())
        item = _marker_item(m.group(1))
        if item is None or end == -1:
            return None
        if item["type"] == "mention":
            item["plain_text"] = unescape(src[m.end() : end])
        return (_Atom([item]), end + len(_MARKER_END))
    if m := _BR.match(src, i):
        return ("\n", m.end())
    if src.startswith("<code>", i):
        end = src.find("</code>", i + 6)
        if end == -1:
            return None
        content = unescape(src[i + 6 : end])
        return (_Atom([{"type": "text", "text": {"content": content}, "annotations": {"code": True}}]), end + 7)
    if m := _AUTOLINK.match(src, i):
        url = m.group(1)
        return (_Atom([{"type": "text", "text": {"content": url, "link": {"url": url}}}]), m.end())
    if m := _TAG.match(src, i):
        closing, name, color = m.group(1) == "/", m.group(2), m.group(3)
        if name == "span":
            if not closing and color is None:
                return None
            return (_Tag("color", color, closing, m.group(0)), m.end())
        if color is not None:
            return None
        return (_Tag(_TAGS[name], None, closing, m.group(0)), m.end())
    return None


def _marker_item(raw: str) -> dict[str, Any] | None:
    try:
        item = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(item, dict) or item.get("type") not in ("mention", "equation", "text"):
        return None
    kind = item["type"]
    if not isinstance(item.get(kind), dict):
        return None
    return {k: v for k, v in item.items() if k in ("type", kind, "annotations")}


def unescape(text: str) -> str:
    """Backslash escapes and `<br>` resolved: the text of a `<code>` tag or a marker."""
    text = _BR.sub("\n", text)
    return re.sub(r"\\([!-/:-@\[-`{-~ ])", r"\1", text)


def _link(src: str, i: int) -> tuple[Node, int] | None:
    close = _closing_bracket(src, i)
    if close is None or not src.startswith("(", close + 1):
        return None
    start = close + 2
    if src.startswith("<", start):
        end = src.find(">", start)
        if end == -1 or "\n" in src[start:end] or not src.startswith(")", end + 1):
            return None
        url, after = src[start + 1 : end], end + 2
    else:
        depth, j = 0, start
        while j < len(src):
            c = src[j]
            if c.isspace():
                return None
            if c == "\\" and j + 1 < len(src):
                j += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        else:
            return None
        url, after = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", src[start:j]), j + 1
    if not url:
        return None
    items = []
    for item in parse_inline(src[i + 1 : close]):
        if item["type"] == "text":
            item = {**item, "text": {**item["text"], "link": {"url": url}}}
        items.append(item)
    return (_Atom(items), after)


def closing_bracket(src: str, i: int) -> int | None:
    """The index of the `]` matching the `[` at `i`, skipping escapes and code spans."""
    return _closing_bracket(src, i)


def _closing_bracket(src: str, i: int) -> int | None:
    depth, j = 0, i
    while j < len(src):
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "`":
            run = len(src[j:]) - len(src[j:].lstrip("`"))
            end = src.find("`" * run, j + run)
            j = end + run if end != -1 else j + run
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


# --- matching -------------------------------------------------------------------------------------

Pair = tuple[int, int, str, str | None]


def _match_tags(nodes: list[Node]) -> list[Pair]:
    pairs: list[Pair] = []
    open_at: dict[str, list[int]] = {}
    for index, node in enumerate(nodes):
        if not isinstance(node, _Tag):
            continue
        if not node.closing:
            open_at.setdefault(node.mark, []).append(index)
        elif open_at.get(node.mark):
            start = open_at[node.mark].pop()
            opener = nodes[start]
            assert isinstance(opener, _Tag)
            pairs.append((start, index, node.mark, opener.value))
            opener.source = node.source = ""
    return pairs


def _match_delims(nodes: list[Node]) -> list[Pair]:
    """CommonMark's "process emphasis", without its performance shortcuts."""
    pairs: list[Pair] = []
    stack: list[int] = []
    for index, node in enumerate(nodes):
        if not isinstance(node, _Delim):
            continue
        if node.can_close:
            while node.remaining:
                found = _opener(nodes, stack, node)
                if found is None:
                    break
                opener = nodes[stack[found]]
                assert isinstance(opener, _Delim)
                if node.char == "~":
                    use, mark = 2, "strikethrough"
                else:
                    use = 2 if opener.remaining >= 2 and node.remaining >= 2 else 1
                    mark = "bold" if use == 2 else "italic"
                pairs.append((stack[found], index, mark, None))
                opener.remaining -= use
                node.remaining -= use
                del stack[found + (1 if opener.remaining else 0) :]
        if node.remaining and node.can_open:
            stack.append(index)
    return pairs


def _opener(nodes: list[Node], stack: list[int], closer: _Delim) -> int | None:
    for position in range(len(stack) - 1, -1, -1):
        opener = nodes[stack[position]]
        assert isinstance(opener, _Delim)
        if opener.char != closer.char or not opener.remaining:
            continue
        if closer.char == "~":
            if opener.length == closer.length:
                return position
            continue
        odd = (opener.can_close or closer.can_open) and (opener.length + closer.length) % 3 == 0
        if odd and not (opener.length % 3 == 0 and closer.length % 3 == 0):
            continue
        return position
    return None
