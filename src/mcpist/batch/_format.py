"""`format_as`: JSON values rendered as text (json, csv, markdown table, lines)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

__all__ = ["FORMATS", "FormatError", "format_as"]

FORMATS = ("json", "csv", "markdown", "lines")


class FormatError(ValueError):
    """The value cannot be rendered in the asked format; the message says why."""


def format_as(value: Any, fmt: str) -> str:
    """Render `value` as `fmt`, one of `FORMATS`.

    Raises:
        FormatError: unknown format, or rows that mix objects and non-objects.
    """
    if fmt == "json":
        return _json(value)
    if fmt == "lines":
        return "\n".join(_cell(item) for item in value) if isinstance(value, list) else _cell(value)
    if fmt == "csv":
        return _csv(_rows(value))
    if fmt == "markdown":
        return _markdown(_rows(value))
    raise FormatError(f"format_as: unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return _json(value)


def _rows(value: Any) -> list[Any]:
    rows = value if isinstance(value, list) else [value]
    objects = sum(isinstance(row, dict) for row in rows)
    if 0 < objects < len(rows):
        raise FormatError("format_as: rows mix objects and non-objects")
    return rows


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    # Union of keys in first-seen order, so rows with missing fields still line up.
    return list(dict.fromkeys(key for row in rows for key in row))


def _csv(rows: list[Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if rows and isinstance(rows[0], dict):
        columns = _columns(rows)
        writer.writerow(columns)
        writer.writerows([_cell(row.get(c)) for c in columns] for row in rows)
    else:
        writer.writerows([_cell(c) for c in row] if isinstance(row, list) else [_cell(row)] for row in rows)
    return out.getvalue()


def _md(text: str) -> str:
    # A raw pipe or newline would end the cell or the row.
    return text.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


def _markdown(rows: list[Any]) -> str:
    if not rows:
        return ""
    if isinstance(rows[0], dict):
        columns = _columns(rows)
        body = [[_cell(row.get(c)) for c in columns] for row in rows]
    else:
        columns = ["value"]
        body = [[_cell(row)] for row in rows]
    lines = ["| " + " | ".join(_md(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_md(c) for c in cells) + " |" for cells in body]
    return "\n".join(lines)
