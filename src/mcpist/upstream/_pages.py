"""Opaque cursors and the next-page conventions of the services we call.

A list tool takes `limit` and `cursor` and returns `next_cursor`. The cursor is URL-safe base64 of compact JSON;
it is opaque to callers but not signed: whatever it holds is checked again on use (a URL must be on the
service's own origin, `collect` validates the page state's type).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Any, Generic, TypeVar

import httpx
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from mcpist.errors import InvalidArgument

__all__ = [
    "MAX_CURSOR",
    "Cursor",
    "Limit",
    "Page",
    "body_cursor",
    "collect",
    "decode_cursor",
    "encode_cursor",
    "link_next",
    "odata_next",
    "offset_next",
    "page_token",
]

T = TypeVar("T")
S = TypeVar("S")

MAX_CURSOR = 2048
_VERSION = 1

Limit = Annotated[int, Field(ge=1, le=100, description="How many items to return at most (1-100).")]
Cursor = Annotated[
    str | None,
    Field(max_length=MAX_CURSOR, description="The next_cursor of a previous call, to continue from there."),
]


class Page(BaseModel, Generic[T]):
    items: list[T]
    next_cursor: str | None = None


def encode_cursor(state: Mapping[str, Any]) -> str:
    """An opaque cursor holding `state` (JSON values only).

    Raises:
        ValueError: the state does not fit in 2048 characters, or is not JSON.
    """
    raw = json.dumps({"v": _VERSION, "s": dict(state)}, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    cursor = base64.urlsafe_b64encode(raw.encode()).decode("ascii").rstrip("=")
    if len(cursor) > MAX_CURSOR:
        raise ValueError(f"cursor state is {len(cursor)} characters once encoded; the limit is {MAX_CURSOR}")
    return cursor


def decode_cursor(cursor: str, *, service: str) -> dict[str, Any]:
    """The state `encode_cursor` put in `cursor`.

    Raises:
        InvalidArgument: the cursor is too long, garbled, or not one this server made (data `field`: "cursor").
    """
    try:
        if len(cursor) > MAX_CURSOR:
            raise ValueError("too long")
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        envelope = json.loads(raw)
    except (ValueError, binascii.Error, TypeError):
        envelope = None
    if not (isinstance(envelope, dict) and envelope.get("v") == _VERSION and isinstance(envelope.get("s"), dict)):
        raise InvalidArgument(
            f"{service}: cursor is not one this tool returned; pass next_cursor unchanged, or omit it to start over",
            {"service": service, "field": "cursor"},
        )
    state: dict[str, Any] = envelope["s"]
    return state


_LINK = re.compile(r"<(?P<url>[^>]*)>(?P<params>(?:\s*;\s*[^;,=\"\s]+\s*(?:=\s*(?:\"(?:[^\"\\]|\\.)*\"|[^;,\"]*))?)*)")
_PARAM = re.compile(r";\s*(?P<name>[^;,=\s]+)\s*(?:=\s*(?:\"(?P<quoted>(?:[^\"\\]|\\.)*)\"|(?P<bare>[^;,]*)))?")


def link_next(response: httpx.Response) -> str | None:
    """The absolute URL of the RFC 8288 `Link` with rel "next" (GitHub, GitLab, Stripe-style APIs), else None."""
    header = ", ".join(response.headers.get_list("link"))
    for link in _LINK.finditer(header):
        for param in _PARAM.finditer(link["params"]):
            if param["name"].lower() != "rel":
                continue
            rel = param["quoted"] if param["quoted"] is not None else (param["bare"] or "")
            if "next" in rel.lower().split():
                url = link["url"].strip()
                return str(response.request.url.join(url)) if url else None
    return None


def body_cursor(body: Any, cursor_key: str = "next_cursor", has_more_key: str | None = "has_more") -> str | None:
    """A cursor the body names (Notion: `has_more` + `next_cursor`); `cursor_key` may be a dotted path.

    With `has_more_key`, the cursor counts only when that flag is true.
    """
    if has_more_key is not None and _dig(body, has_more_key) is not True:
        return None
    value = _dig(body, cursor_key)
    return value if isinstance(value, str) and value else None


def offset_next(
    start_at: int, max_results: int, total: int | None, got: int, *, is_last: bool | None = None
) -> int | None:
    """The next `startAt` (Jira), or None at the end.

    Pass the `maxResults` the upstream answered with, not the one asked for: the upstream may lower it.
    """
    if is_last or got <= 0:
        return None
    following = start_at + got
    if total is not None:
        return following if following < total else None
    return following if got >= max_results else None


def page_token(body: Any, key: str = "nextPageToken") -> str | None:
    """Google's `nextPageToken`, else None."""
    value = _dig(body, key)
    return value if isinstance(value, str) and value else None


def odata_next(body: Any) -> str | None:
    """Microsoft Graph's `@odata.nextLink` URL, else None."""
    value = body.get("@odata.nextLink") if isinstance(body, dict) else None
    return value if isinstance(value, str) and value else None


def _dig(body: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


async def collect(
    fetch: Callable[[S | None], Awaitable[tuple[Sequence[T], S | None]]],
    limit: int,
    *,
    cursor: str | None,
    service: str,
    state_type: Any = str,
    max_pages: int = 10,
) -> Page[T]:
    """Up to `limit` items from `fetch(state) -> (items, next_state)`, starting at `cursor`.

    `state` is None for the first upstream page; `state_type` (e.g. `str` for a token or URL, `int` for an offset)
    checks the state a cursor brings back. When `limit` ends inside an upstream page the cursor records the
    offset into that page, which is fetched again next time, so no item is skipped. At most `max_pages`
    upstream pages are fetched per call; a cursor then continues from the next one.

    Raises:
        InvalidArgument: the cursor is not one this function made, or holds a state of the wrong type.
    """
    state: S | None = None
    skip = 0
    if cursor:
        state, skip = _resume(cursor, service, state_type)
    items: list[T] = []
    for _ in range(max_pages):
        got, following = await fetch(state)
        fresh = list(got)[skip:]
        room = limit - len(items)
        if len(fresh) > room:
            items.extend(fresh[:room])
            return Page(items=items, next_cursor=encode_cursor({"p": state, "k": skip + room}))
        items.extend(fresh)
        if following is None:
            return Page(items=items, next_cursor=None)
        state, skip = following, 0
        if len(items) >= limit:
            break
    return Page(items=items, next_cursor=encode_cursor({"p": state, "k": 0}))


def _resume(cursor: str, service: str, state_type: Any) -> tuple[Any, int]:
    saved = decode_cursor(cursor, service=service)
    try:
        state = TypeAdapter(state_type | None).validate_python(saved.get("p"), strict=True)
        skip = TypeAdapter(Annotated[int, Field(ge=0)]).validate_python(saved.get("k", 0), strict=True)
    except ValidationError:
        raise InvalidArgument(
            f"{service}: cursor is not one this tool returned; pass next_cursor unchanged, or omit it to start over",
            {"service": service, "field": "cursor"},
        ) from None
    return state, skip
