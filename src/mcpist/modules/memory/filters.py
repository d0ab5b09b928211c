"""Metadata filters: PostgreSQL `jsonb @>` containment, or exact equality per key.

`contains` (the default) follows jsonb containment: an object matches when it holds every
key of the filter with a containing value; arrays contain arrays element-wise, in any order;
scalars must be equal (1 equals 1.0, but true is not 1). `exact` asks each filter key's value
to equal the stored value exactly (arrays in order, objects with the same keys). Python is the
authority on both backends; the SQL forms only narrow the candidates (and on PostgreSQL use
the GIN index).
"""

from __future__ import annotations

import json
from typing import Any, Literal

import sqlalchemy as sa

from mcpist.modules import InvalidArgument

from .tables import entries

MatchMode = Literal["contains", "exact"]
MAX_DEPTH = 32
INT64 = (-(2**63), 2**63 - 1)


def check_json(value: dict[str, Any], field: str, limit: int, *, int64: bool = False) -> dict[str, Any]:
    """`value` if it is plain JSON within `limit` bytes, `MAX_DEPTH` levels, without NUL characters
    (PostgreSQL's jsonb refuses them) and, with `int64`, with integers SQL can compare.

    Raises:
        InvalidArgument: naming `field` and what is wrong.
    """
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode())
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidArgument(f"'{field}' is not plain JSON: {str(exc)[:200]}", {"field": field}) from None
    if size > limit:
        raise InvalidArgument(f"'{field}' is {size} bytes; the limit is {limit}", {"field": field, "limit": limit})
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        problem = None
        if depth > MAX_DEPTH:
            problem = f"nests deeper than {MAX_DEPTH} levels"
        elif isinstance(item, dict):
            if any("\x00" in key for key in item):
                problem = "has a key with a NUL character"
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str) and "\x00" in item:
            problem = "has a string with a NUL character"
        elif int64 and isinstance(item, int) and not isinstance(item, bool) and not INT64[0] <= item <= INT64[1]:
            problem = "has an integer outside signed 64 bits"
        if problem is not None:
            raise InvalidArgument(f"'{field}' {problem}", {"field": field})
    return value


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(a: Any, b: Any) -> bool:
    if _number(a) and _number(b):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def contains(stored: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        return isinstance(stored, dict) and all(k in stored and contains(stored[k], v) for k, v in wanted.items())
    if isinstance(wanted, list):
        return isinstance(stored, list) and all(any(contains(s, w) for s in stored) for w in wanted)
    return json_equal(stored, wanted)


def matches(metadata: dict[str, Any], wanted: dict[str, Any], mode: MatchMode) -> bool:
    if mode == "exact":
        return all(k in metadata and json_equal(metadata[k], v) for k, v in wanted.items())
    return contains(metadata, wanted)


def sql_clause(dialect: str, wanted: dict[str, Any], mode: MatchMode) -> sa.ColumnElement[bool]:
    """A WHERE clause true for every match (and, on SQLite, maybe for some non-matches)."""
    col = entries.c["metadata"]
    if not wanted:
        return sa.true()
    if dialect == "postgresql":
        clause: sa.ColumnElement[bool] = col.op("@>")(sa.cast(sa.literal(json.dumps(wanted)), col.type))
        if mode == "exact":
            for key, value in wanted.items():
                clause = sa.and_(
                    clause, col.op("->")(sa.literal(key)) == sa.cast(sa.literal(json.dumps(value)), col.type)
                )
        return clause
    parts: list[sa.ColumnElement[bool]] = []
    for key, value in wanted.items():
        if '"' in key or "\\" in key:
            continue  # such keys cannot be written in a JSON path; Python checks them
        path = sa.literal(f'$."{key}"')
        kind = sa.func.json_type(col, path)
        if value is True or value is False:
            parts.append(kind == ("true" if value else "false"))
        elif value is None:
            parts.append(kind == "null")
        elif isinstance(value, str):
            parts.append(sa.and_(kind == "text", sa.func.json_extract(col, path) == value))
        elif _number(value):
            parts.append(sa.and_(kind.in_(("integer", "real")), sa.func.json_extract(col, path) == value))
        elif isinstance(value, list):
            parts.append(kind == "array")
        else:
            parts.append(kind == "object")
    return sa.and_(sa.true(), *parts)
