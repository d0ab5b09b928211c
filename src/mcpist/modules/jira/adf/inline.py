"""Inline ADF (text with marks, hard breaks, mentions and the like) to Markdown and back.

Strong is `**`, em `_` (or `*` inside a word), strike `~~`, underline `<u>`, code backticks, links
`[text](href)`. A hard break is a line break (`<br>` in a table cell or heading). Any other inline node, and
text whose marks Markdown cannot say (colour, sub/sup, a link with a title), is kept whole as
`<!-- adf:{...} -->shown<!-- /adf -->`, where `shown` is only for the reader.
"""

from __future__ import annotations

import re
from typing import Any

from ._common import INLINE_END, INLINE_MARKER, Node, canonical, load_marker, marker_json, plain_mark

_ALWAYS_ESCAPED = set("\\`*[~")


def _shown(node: Node) -> str:
    """What a kept node looks like to the reader; parsing ignores it."""
    found = node.get("attrs")
    attrs: dict[str, Any] = found if isinstance(found, dict) else {}
    kind = node.get("type")
    if kind == "text":
        return str(node.get("text", ""))
    if kind == "mention":
        text = str(attrs.get("text") or attrs.get("id") or "")
        return text if text.startswith("@") else "@" + text
    if kind == "emoji":
        return str(attrs.get("text") or attrs.get("shortName") or "")
    if kind == "status":
        return f"[{attrs.get('text', '')}]"
    if kind in ("inlineCard", "blockCard", "embedCard"):
        return str(attrs.get("url") or "")
    if kind == "date":
        return str(attrs.get("timestamp") or "")
    return str(kind)


def _escape(text: str, *, cell: bool) -> str:
    out = []
    for i, char in enumerate(text):
        prev = text[i - 1] if i else ""
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if (
            char in _ALWAYS_ESCAPED
            or (char == "_" and not (prev.isalnum() and nxt.isalnum()))
            or (char == "<" and (nxt.isalpha() or nxt in "/!"))
            or (char == "]" and nxt == "(")
            or (char == "|" and cell)
        ):
            out.append("\\")
        out.append(char)
    return "".join(out)


def _code_span(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _link_target(href: str) -> str:
    return f"<{href}>" if re.search(r"[\s()<>]", href) else href


def render_inline(nodes: list[Any], *, cell: bool = False) -> str:
    """Inline nodes as Markdown; `cell` is a table cell or heading, where a line break must be `<br>`."""
    items: list[tuple[tuple[Node, ...], str]] = []
    for raw in nodes:
        node = canonical(raw)
        kind = node.get("type") if isinstance(node, dict) else None
        marks = node.get("marks", []) if isinstance(node, dict) else []
        if kind == "text" and set(node) <= {"type", "text", "marks"} and all(plain_mark(m) for m in marks):
            text = str(node.get("text", ""))
            if "\n" not in text and "\r" not in text:
                names = [m["type"] for m in marks]
                if "code" in names:
                    piece, marks = _code_span(text), [m for m in marks if m["type"] != "code"]
                else:
                    piece = _escape(text, cell=cell)
                items.append((tuple(marks), piece))
                continue
        if kind == "hardBreak" and set(node) == {"type"}:
            items.append(((), "<br>" if cell else "\\\n"))
            continue
        items.append(((), f"<!-- adf:{marker_json(node)} -->{_escape(_shown(node), cell=True)}{INLINE_END}"))
    return _wrap(items, "")


def _wrap(items: list[tuple[tuple[Node, ...], str]], before: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(items):
        marks, piece = items[i]
        if not marks:
            out.append(piece)
            i += 1
            continue
        first, j = marks[0], i
        while j < len(items) and items[j][0] and items[j][0][0] == first:
            j += 1
        prev = (out[-1][-1:] if out else before[-1:]) or " "
        after = items[j][1][:1] if j < len(items) else ""
        inner = _wrap([(m[1:], p) for m, p in items[i:j]], "_")
        kind = first["type"]
        if kind == "link":
            out.append(f"[{inner}]({_link_target(first['attrs']['href'])})")
        elif kind == "strong":
            out.append(f"**{inner}**")
        elif kind == "em":
            # `_` cannot open or close inside a word (snake_case stays plain text), `*` can
            intraword = prev.isalnum() or after.isalnum()
            out.append(f"*{inner}*" if intraword else f"_{inner}_")
        elif kind == "strike":
            out.append(f"~~{inner}~~")
        else:
            out.append(f"<u>{inner}</u>")
        i = j
    return "".join(out)


# --- Markdown -> ADF -------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\\\n|\\[!-/:-@\[-`{-~]|<!-- adf:\{[^<>\n]*\} -->|<!-- /adf -->|<br\s*/?>|</?u>|`+|\*+|_+|~~|\[|\]\(|\n"
)


def parse_inline(text: str) -> list[Node]:
    """Markdown inline text as ADF inline nodes (the inverse of `render_inline`)."""
    out: list[Any] = []  # text nodes as dicts, openers as ["open", kind, delimiter]
    stack: list[list[Any]] = []
    pos = 0

    def add(piece: str) -> None:
        if piece:
            out.append({"type": "text", "text": piece})

    def close(kind: str, mark: Node | None = None) -> bool:
        for depth in range(len(stack) - 1, -1, -1):
            if stack[depth][1] == kind:
                opener = stack[depth]
                start = next(k for k, item in enumerate(out) if item is opener)
                for item in out[start + 1 :]:
                    if isinstance(item, dict):
                        item.setdefault("marks", []).append(mark or {"type": kind})
                    elif isinstance(item, list) and item not in stack[depth + 1 :]:
                        pass
                for inner in stack[depth + 1 :]:
                    _literal(out, inner)
                del out[start]
                del stack[depth:]
                return True
        return False

    def open_(kind: str, delimiter: str) -> None:
        opener: list[Any] = ["open", kind, delimiter]
        out.append(opener)
        stack.append(opener)

    while pos < len(text):
        found = _TOKEN.search(text, pos)
        if found is None:
            add(text[pos:])
            break
        add(text[pos : found.start()])
        token, pos = found.group(), found.end()
        prev = text[found.start() - 1] if found.start() else " "
        nxt = text[pos] if pos < len(text) else " "
        if token in ("\\\n", "\n") or token.startswith("<br"):
            out.append({"type": "hardBreak"})
        elif token.startswith("\\"):
            add(token[1])
        elif token.startswith("<!-- adf:"):
            node = load_marker(token[9:-4])
            end = text.find(INLINE_END, pos)
            if node is None:
                add(token)
                continue
            out.append(node)
            if end != -1 and INLINE_MARKER.search(text, pos, end) is None:
                pos = end + len(INLINE_END)  # what the marker showed is not content
        elif token == INLINE_END:
            continue
        elif token in ("<u>", "</u>"):
            if token == "<u>":  # noqa: S105 - Markdown, not a password
                open_("underline", token)
            elif not close("underline"):
                add(token)
        elif token.startswith("`"):
            closing = re.compile(rf"(?<!`){token}(?!`)").search(text, pos)
            if closing is None:
                add(token)
                continue
            code = text[pos : closing.start()]
            if len(code) >= 2 and code[0] == code[-1] == " " and code.strip():
                code = code[1:-1]
            out.append({"type": "text", "text": code, "marks": [{"type": "code"}]})
            pos = closing.end()
        elif token.startswith("*"):
            _stars(token, open_, close, add)
        elif token.startswith("_"):
            if len(token) == 1 and not nxt.isalnum() and any(s[1] == "em_" for s in stack) and close("em_"):
                pass
            elif len(token) == 1 and not prev.isalnum() and not nxt.isspace():
                open_("em_", token)
            else:
                add(token)
        elif token == "~~":  # noqa: S105
            if not close("strike"):
                open_("strike", token)
        elif token == "[":  # noqa: S105
            open_("link", token)
        elif token == "](":  # noqa: S105
            target = re.compile(r"<([^<>\n]*)>\)|([^\s()]*)\)").match(text, pos)
            if target is None or not any(s[1] == "link" for s in stack):
                add(token)
                continue
            href = target.group(1) if target.group(1) is not None else target.group(2)
            close("link", {"type": "link", "attrs": {"href": href}})
            pos = target.end()
        else:
            add(token)
    for opener in list(stack):
        _literal(out, opener)
    nodes = [_finish(item) for item in out if isinstance(item, dict)]
    joined: list[Node] = canonical({"content": nodes}).get("content", [])
    return joined


def _stars(token: str, open_: Any, close: Any, add: Any) -> None:
    if len(token) == 1:
        if not close("em*"):
            open_("em*", token)
    elif len(token) == 2:
        if not close("strong"):
            open_("strong", token)
    elif len(token) == 3:
        if not (close("em*") and close("strong")):
            open_("strong", "**")
            open_("em*", "*")
    else:
        add(token)


def _literal(out: list[Any], opener: list[Any]) -> None:
    for k, item in enumerate(out):
        if item is opener:
            out[k] = {"type": "text", "text": opener[2]}
            return


def _finish(node: Node) -> Node:
    marks = node.get("marks")
    if node.get("type") == "text" and marks:
        # `canonical` then puts the marks in MARK_ORDER
        node = {**node, "marks": [{"type": "em"} if m.get("type") in ("em*", "em_") else m for m in marks]}
    return node
