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

from .tables import entries

MatchMode = Literal["contains", "exact"]


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
