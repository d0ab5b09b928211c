"""What both directions share: the marker syntax, the marks Markdown can say, and ADF's canonical form."""

from __future__ import annotations

import json
import re
from typing import Any

Node = dict[str, Any]

# the order marks nest in Markdown, outermost first; a parsed node lists its marks in this order
MARK_ORDER = ("link", "strong", "em", "strike", "underline", "code")
INLINE_MARKER = re.compile(r"<!-- adf:(\{[^<>\n]*\}) -->")
INLINE_END = "<!-- /adf -->"
BLOCK_MARKER = re.compile(r"^<!-- adf:(\{[^<>\n]*\}) -->$")
# attributes (and block marks) of the next block that its Markdown form cannot carry, e.g. a table's layout
EXTRAS_MARKER = re.compile(r"^<!-- adf-block:(\{[^<>\n]*\}) -->$")


def marker_json(value: Any) -> str:
    """Compact JSON on one line without `<` or `>`, so it cannot end the HTML comment that carries it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("\n", "\\n")


def load_marker(text: str) -> Node | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def plain_mark(mark: Any) -> bool:
    """A mark Markdown writes by itself: the five plain ones without attributes, and a link with only `href`."""
    if not isinstance(mark, dict) or mark.get("type") not in MARK_ORDER:
        return False
    attrs = mark.get("attrs")
    if mark["type"] == "link":
        return set(mark) <= {"type", "attrs"} and isinstance(attrs, dict) and set(attrs) == {"href"}
    return set(mark) == {"type"} or (set(mark) == {"type", "attrs"} and not attrs)


def _mark_rank(mark: Any) -> tuple[int, str]:
    kind = mark.get("type") if isinstance(mark, dict) else None
    rank = MARK_ORDER.index(kind) if kind in MARK_ORDER else len(MARK_ORDER)
    return rank, marker_json(mark)


def canonical(node: Any) -> Any:
    """ADF as the Markdown round trip gives it back; equal documents mean the same to Jira.

    Marks are sorted (Jira ignores their order), neighbouring texts with the same marks are joined, empty texts
    and empty `attrs`/`content`/`marks` are dropped, and an ordered list's default `order: 1` is left out.
    """
    if isinstance(node, list):
        return [canonical(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: Node = {}
    for key, value in node.items():
        if key == "marks" and isinstance(value, list):
            value = sorted((canonical(m) for m in value), key=_mark_rank)
        elif key == "content" and isinstance(value, list):
            value = _join_texts([canonical(child) for child in value])
        else:
            value = canonical(value)
        if key in ("attrs", "content", "marks") and not value:
            continue
        out[key] = value
    if out.get("type") == "orderedList" and out.get("attrs", {}).get("order") == 1:
        attrs = {k: v for k, v in out["attrs"].items() if k != "order"}
        out.pop("attrs")
        if attrs:
            out["attrs"] = attrs
    return out


def _join_texts(children: list[Any]) -> list[Any]:
    joined: list[Any] = []
    for child in children:
        if isinstance(child, dict) and child.get("type") == "text" and set(child) <= {"type", "text", "marks"}:
            if child.get("text") == "":
                continue
            last = joined[-1] if joined else None
            if (
                isinstance(last, dict)
                and last.get("type") == "text"
                and set(last) <= {"type", "text", "marks"}
                and last.get("marks") == child.get("marks")
            ):
                joined[-1] = {**last, "text": last["text"] + child["text"]}
                continue
        joined.append(child)
    return joined
