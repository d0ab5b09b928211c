"""What the groups of tools share: parameter types, URLs, a calendar's time zone, Google's errors and pages."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import quote
from zoneinfo import ZoneInfo

from pydantic import Field

from mcpist.modules import NotFound, PermissionDenied, Unavailable
from mcpist.upstream import Page, ServiceClient, collect, page_token

from ._module import Ctx
from ._times import SERVICE, TIME_PATTERN, invalid, zone

T = TypeVar("T")

CalendarId = Annotated[
    str,
    Field(min_length=1, max_length=255, pattern=r"^[^\s/?]+$", description='from list_calendars; "primary" is yours'),
]
EventId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1024,
        pattern=r"^[A-Za-z0-9_@.\-]+$",
        description="an event's or an occurrence's id",
    ),
]
TimeZoneName = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z][A-Za-z0-9_+\-/]*$",
        description="IANA zone for local times in and out, e.g. Europe/Berlin; default: the calendar's",
    ),
]
TimeText = Annotated[str, Field(max_length=40, pattern=TIME_PATTERN)]
RangeStart = Annotated[
    str | None,
    Field(max_length=40, pattern=TIME_PATTERN, description="from: a day, local time or RFC 3339; default today 00:00"),
]
RangeEnd = Annotated[
    str | None,
    Field(max_length=40, pattern=TIME_PATTERN, description="until (exclusive); a day is included whole"),
]
Notify = Annotated[Literal["all", "externalOnly", "none"], Field(description="whom Google emails about it")]


def seg(value: str) -> str:
    if value in ("", ".", ".."):
        raise invalid(f"{value!r} cannot be part of a URL path")
    return quote(value, safe="@")


def cal_url(calendar_id: str) -> str:
    return f"/calendars/{seg(calendar_id)}"


def events_url(calendar_id: str, event_id: str | None = None) -> str:
    base = f"{cal_url(calendar_id)}/events"
    return base if event_id is None else f"{base}/{seg(event_id)}"


def now() -> datetime:
    return datetime.now(UTC)


@contextmanager
def google_errors(what: str) -> Iterator[None]:
    """Google answers 404 for what does not exist and for what the account may not see: say both. A 403 for
    a spent quota is a wait, not a refusal."""
    try:
        yield
    except NotFound as exc:
        if exc.data.get("status") != 404:
            raise
        raise NotFound(f"{SERVICE}: {what} not found, or the account cannot see it", exc.data) from None
    except PermissionDenied as exc:
        if "limit" in exc.message.lower() and "exceeded" in exc.message.lower():
            raise Unavailable(f"{SERVICE}: Google's usage limit is reached; try again later", exc.data) from None
        raise


async def calendar_zone(http: ServiceClient, calendar_id: str) -> ZoneInfo:
    """The calendar's own time zone (UTC if Google names none it knows).

    Raises:
        NotFound: no such calendar for this account.
    """
    with google_errors(f"calendar {calendar_id}"):
        body = http.parse(dict[str, Any], await http.get_json(cal_url(calendar_id)))
    name = body.get("timeZone")
    if isinstance(name, str):
        try:
            return ZoneInfo(name)
        except (ValueError, KeyError):
            pass
    return ZoneInfo("UTC")


async def zone_for(ctx: Ctx, calendar_id: str, given: str | None, http: ServiceClient | None = None) -> ZoneInfo:
    """The zone local times mean and results are shown in: the caller's, else the calendar's."""
    if given is not None:
        return zone(given)
    return await calendar_zone(http or ctx.http, calendar_id)


async def google_paged(
    http: ServiceClient,
    url: str,
    params: Mapping[str, Any],
    read: Callable[[dict[str, Any]], list[T]],
    *,
    limit: int,
    cursor: str | None,
    page_size: int | None = None,
    last: dict[str, Any] | None = None,
) -> Page[T]:
    """Up to `limit` items over Google's `pageToken`/`nextPageToken`; `last` receives the last body read."""

    async def fetch(token: str | None) -> tuple[list[T], str | None]:
        query = {**params, "maxResults": page_size or limit, **({"pageToken": token} if token else {})}
        body = http.parse(dict[str, Any], await http.get_json(url, params=query))
        if last is not None:
            last.clear()
            last.update(body)
        return read(body), page_token(body)

    return await collect(fetch, limit, cursor=cursor, service=SERVICE)


def drop_none(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}
