"""What every group of tools shares: the project a call may touch, parameter types, paging and bounds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from pydantic import Field

from mcpist.modules import InvalidArgument, PermissionDenied
from mcpist.upstream import Page, decode_cursor, encode_cursor

from ._module import REF_PATTERN, Ctx

T = TypeVar("T")
SERVICE = "supabase"

Project = Annotated[
    str | None,
    Field(
        pattern=f"^{REF_PATTERN}$",
        description="project ref (20 lowercase letters); optional when the account is pinned to one",
    ),
]
Slug = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")]
OrgSlug = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[\w-]+$", description="organization slug")]
SchemaName = Annotated[str, Field(min_length=1, max_length=63, pattern=r"^[A-Za-z_][A-Za-z0-9_$]*$")]
Schemas = Annotated[list[SchemaName], Field(min_length=1, max_length=20, description='e.g. ["public"]')]


def invalid(message: str, **data: Any) -> InvalidArgument:
    return InvalidArgument(f"{SERVICE}: {message}", {"service": SERVICE, **data})


def target(ctx: Ctx, ref: str | None) -> str:
    """The project this call may touch: `ref`, or the account's pinned project when `ref` is None.

    Raises:
        InvalidArgument: no project named and none pinned.
        PermissionDenied: the account is pinned to another project.
    """
    pinned = ctx.account.fields.get("project_ref") if ctx.account is not None else None
    if ref is None:
        if pinned is None:
            raise invalid("`project` is required (a project ref from list_projects)", field="project")
        return pinned
    if pinned is not None and ref != pinned:
        label = ctx.account.label if ctx.account is not None else SERVICE
        raise PermissionDenied(
            f"{SERVICE}: account {label} is pinned to project {pinned}; project {ref} is refused",
            {"service": SERVICE, "field": "project", "pinned": pinned},
        )
    return ref


def pinned(ctx: Ctx) -> str | None:
    return ctx.account.fields.get("project_ref") if ctx.account is not None else None


def api(ref: str, rest: str = "") -> str:
    """`/v1/projects/{ref}{rest}`; `ref` has been checked against REF_PATTERN by the schema or the account."""
    return f"/v1/projects/{ref}{rest}"


def seg(value: str) -> str:
    """One path segment, percent-encoded.

    Raises:
        InvalidArgument: an empty, `.` or `..` segment.
    """
    if value in ("", ".", ".."):
        raise invalid(f"{value!r} cannot be part of a URL path")
    return quote(value, safe="")


def object_path(path: str) -> str:
    """An object's key as URL path segments, each percent-encoded.

    Raises:
        InvalidArgument: a leading slash, an empty, `.` or `..` segment.
    """
    return "/".join(seg(part) for part in path.split("/"))


def page_of(items: Sequence[T], limit: int, cursor: str | None) -> Page[T]:
    """`limit` items of a list the upstream returns whole, from the offset `cursor` holds.

    Raises:
        InvalidArgument: a cursor this module did not make.
    """
    start = offset_of(cursor)
    end = start + limit
    return Page(items=list(items[start:end]), next_cursor=encode_cursor({"o": end}) if end < len(items) else None)


def offset_of(cursor: str | None) -> int:
    if not cursor:
        return 0
    offset = decode_cursor(cursor, service=SERVICE).get("o")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise invalid("cursor is not one this tool returned; pass next_cursor unchanged", field="cursor")
    return offset


def millis(value: Any) -> str | None:
    """Milliseconds since the epoch (Edge Functions' timestamps) as an ISO 8601 UTC time."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, UTC).isoformat().replace("+00:00", "Z")
    return value if isinstance(value, str) else None


def clip_value(value: Any, limit: int) -> tuple[Any, bool]:
    """`value` with every string longer than `limit` characters cut; and whether anything was cut."""
    if isinstance(value, str):
        if len(value) > limit:
            return value[:limit] + f"…[cut: {limit} of {len(value)} characters]", True
        return value, False
    if isinstance(value, list):
        cut = False
        items = []
        for item in value:
            clipped, was = clip_value(item, limit)
            items.append(clipped)
            cut = cut or was
        return items, cut
    if isinstance(value, dict):
        cut = False
        out = {}
        for key, item in value.items():
            clipped, was = clip_value(item, limit)
            out[key] = clipped
            cut = cut or was
        return out, cut
    return value, False


def bound_rows(
    rows: Sequence[Any], *, max_rows: int, max_bytes: int, max_cell_chars: int
) -> tuple[list[dict[str, Any]], bool]:
    """The leading rows that fit in `max_rows` and `max_bytes` of JSON, long values cut; and whether any was cut."""
    kept: list[dict[str, Any]] = []
    size = 2
    cut = False
    for row in rows[:max_rows]:
        value, was = clip_value(row if isinstance(row, dict) else {"value": row}, max_cell_chars)
        grown = len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode()) + 1
        if size + grown > max_bytes:
            break
        size += grown
        kept.append(value)
        cut = cut or was
    return kept, cut
