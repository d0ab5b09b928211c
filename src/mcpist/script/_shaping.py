"""The data-shaping built-ins of scripts (batch's functions where Starlark lacks them), and JSON checks.

Deterministic: they reshape data and never judge it. A key is a field name or a dotted path
(`"owner.id"`); anything fancier is a Starlark `lambda` with `sorted(key=...)` or a comprehension.
Standard library only: these run inside the sandbox process.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

__all__ = ["FORMATS", "SHAPING", "NestingError", "ScriptError", "check_json", "format_as"]

FORMATS = ("json", "csv", "markdown", "lines")


class ScriptError(Exception):
    """A built-in refused its arguments; the message names the built-in and is shown as the script's error."""


class NestingError(ScriptError):
    """A value nests deeper than allowed."""


def _jtype(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list | tuple) else "object" if isinstance(value, dict) else type(value).__name__


def check_json(value: Any, max_nesting: int, what: str) -> Any:
    """`value` as plain JSON types (tuples become lists), checked without recursion.

    Raises:
        NestingError: lists and objects nest deeper than `max_nesting`.
        ScriptError: a key is not a string, or a value is not JSON (a function, a struct).
    """
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]
    while stack:
        item, parent, slot, depth = stack.pop()
        if isinstance(item, dict | list | tuple) and depth >= max_nesting:
            raise NestingError(f"{what} nests deeper than {max_nesting} levels")
        if isinstance(item, dict):
            out: Any = {}
            for key, child in item.items():
                if not isinstance(key, str):
                    raise ScriptError(f"{what} has a {_jtype(key)} key {key!r}; JSON keys are strings")
                out[key] = None
                stack.append((child, out, key, depth + 1))
        elif isinstance(item, list | tuple):
            out = [None] * len(item)
            stack.extend((child, out, i, depth + 1) for i, child in enumerate(item))
        elif item is None or isinstance(item, str | int | float):
            out = item
        else:
            raise ScriptError(f"{what} holds a {type(item).__name__}, which is not JSON")
        parent[slot] = out
    return root[0]


def _field(item: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(item, dict):
            return None
        item = item.get(part)
    return item


def _objects(name: str, items: Any, side: str = "") -> list[dict[str, Any]]:
    if not isinstance(items, list | tuple):
        raise ScriptError(f"{name}(): expected a list{side}, got {_jtype(items)}")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ScriptError(f"{name}(): element {i}{side} is {_jtype(item)}, not an object")
    return list(items)


def _key_arg(name: str, key: Any) -> str:
    if not isinstance(key, str) or not key:
        raise ScriptError(f"{name}(): the key must be a field name such as 'id' or 'owner.id'")
    return key


def where(items: Any, **equals: Any) -> list[dict[str, Any]]:
    """The objects whose fields equal every given value: `where(items, status="open")`."""
    rows = _objects("where", items)
    if not equals:
        raise ScriptError("where(): name at least one field, e.g. where(items, status='open')")
    return [row for row in rows if all(row.get(k) == v for k, v in equals.items())]


def sort_by(items: Any, key: Any, desc: bool = False) -> list[Any]:
    """Stable sort by a field; keys must be all numbers or all strings."""
    rows = _objects("sort_by", items)
    field = _key_arg("sort_by", key)
    keys = [_field(row, field) for row in rows]
    kinds = {_jtype(k) for k in keys}
    if len(kinds) > 1 or not kinds <= {"number", "string"}:
        raise ScriptError(
            f"sort_by(): the keys must be all numbers or all strings, got {', '.join(sorted(kinds))}; "
            "filter out missing ones first"
        )
    order = sorted(range(len(rows)), key=keys.__getitem__, reverse=bool(desc))
    return [rows[i] for i in order]


def pluck(value: Any, *names: str) -> Any:
    """Only the named fields (missing ones become None), of one object or of each in a list."""
    if not names or not all(isinstance(n, str) for n in names):
        raise ScriptError("pluck(): name the fields to keep, e.g. pluck(items, 'id', 'title')")
    if isinstance(value, dict):
        return {name: value.get(name) for name in names}
    return [{name: row.get(name) for name in names} for row in _objects("pluck", value)]


def _join_key(name: str, value: Any) -> tuple[str, Any] | None:
    kind = _jtype(value)
    if kind == "null":
        return None  # as in SQL, a missing key matches nothing
    if kind not in ("string", "number", "boolean"):
        raise ScriptError(f"{name}(): keys must be strings, numbers or booleans, got {kind}")
    return kind, value


def hash_join(left: Any, right: Any, left_key: Any, right_key: Any = None) -> list[dict[str, Any]]:
    """Inner join on left[left_key] == right[right_key]; each match merged into one object (right wins)."""
    lkey = _key_arg("hash_join", left_key)
    rkey = _key_arg("hash_join", right_key if right_key is not None else left_key)
    index: dict[tuple[str, Any], list[dict[str, Any]]] = {}
    for row in _objects("hash_join", right, " (right)"):
        k = _join_key("hash_join", _field(row, rkey))
        if k is not None:
            index.setdefault(k, []).append(row)
    joined: list[dict[str, Any]] = []
    for row in _objects("hash_join", left, " (left)"):
        k = _join_key("hash_join", _field(row, lkey))
        joined.extend({**row, **match} for match in (index.get(k, []) if k is not None else []))
    return joined


def _group_key(name: str, row: dict[str, Any], key: str, i: int) -> str:
    value = _field(row, key)
    kind = _jtype(value)
    if kind == "string":
        return str(value)
    if kind in ("number", "boolean"):
        return json.dumps(value)
    raise ScriptError(f"{name}(): the key of element {i} is {kind}; keys must be strings, numbers or booleans")


def group_by(items: Any, key: Any) -> dict[str, list[dict[str, Any]]]:
    """`{"open": [...], "done": [...]}` by a field's value."""
    field = _key_arg("group_by", key)
    groups: dict[str, list[dict[str, Any]]] = {}
    for i, row in enumerate(_objects("group_by", items)):
        groups.setdefault(_group_key("group_by", row, field, i), []).append(row)
    return groups


def index_by(items: Any, key: Any) -> dict[str, dict[str, Any]]:
    """`{"u1": {...}}` by a field's value; a later duplicate wins."""
    field = _key_arg("index_by", key)
    return {_group_key("index_by", row, field, i): row for i, row in enumerate(_objects("index_by", items))}


def unique(items: Any) -> list[Any]:
    """The distinct values (deep equality), in first-seen order."""
    if not isinstance(items, list | tuple):
        raise ScriptError(f"unique(): expected a list, got {_jtype(items)}")
    seen: set[str] = set()
    kept: list[Any] = []
    for item in items:
        text = json.dumps(item, sort_keys=True, separators=(",", ":"))
        if text not in seen:
            seen.add(text)
            kept.append(item)
    return kept


def format_as(value: Any, fmt: Any) -> str:
    """`value` as text: 'json', 'csv', 'markdown' (a table) or 'lines' (one element a line)."""
    if fmt == "json":
        return _json(value)
    if fmt == "lines":
        return "\n".join(_cell(item) for item in value) if isinstance(value, list | tuple) else _cell(value)
    if fmt in ("csv", "markdown"):
        rows = list(value) if isinstance(value, list | tuple) else [value]
        objects = sum(isinstance(row, dict) for row in rows)
        if 0 < objects < len(rows):
            raise ScriptError("format_as(): rows mix objects and non-objects")
        return _csv(rows) if fmt == "csv" else _markdown(rows)
    raise ScriptError(f"format_as(): unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else _json(value)


def _table(rows: list[Any]) -> tuple[list[str], list[list[str]]]:
    if rows and isinstance(rows[0], dict):
        # the union of keys in first-seen order, so rows with missing fields still line up
        columns = list(dict.fromkeys(key for row in rows for key in row))
        return columns, [[_cell(row.get(c)) for c in columns] for row in rows]
    return ["value"], [[_cell(row)] for row in rows]


def _csv(rows: list[Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if rows and isinstance(rows[0], dict):
        columns, body = _table(rows)
        writer.writerow(columns)
        writer.writerows(body)
    else:
        writer.writerows([_cell(c) for c in row] if isinstance(row, list | tuple) else [_cell(row)] for row in rows)
    return out.getvalue()


def _markdown(rows: list[Any]) -> str:
    if not rows:
        return ""
    columns, body = _table(rows)

    def md(text: str) -> str:
        # a raw pipe or newline would end the cell or the row
        return text.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")

    lines = ["| " + " | ".join(md(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(md(c) for c in cells) + " |" for cells in body]
    return "\n".join(lines)


SHAPING: dict[str, Callable[..., Any]] = {
    "where": where,
    "sort_by": sort_by,
    "pluck": pluck,
    "hash_join": hash_join,
    "group_by": group_by,
    "index_by": index_by,
    "unique": unique,
    "format_as": format_as,
}
