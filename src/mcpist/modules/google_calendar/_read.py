"""Tools that read events: a time range, a search across calendars, one event, a series' occurrences, and
what changed since a sync token."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from mcpist.modules import NotFound
from mcpist.upstream import Cursor, Limit, MaxChars, Offset, decode_cursor, encode_cursor, page_token

from ._common import (
    CalendarId,
    EventId,
    RangeEnd,
    RangeStart,
    TimeZoneName,
    events_url,
    google_errors,
    google_paged,
    now,
    zone_for,
)
from ._models import Event, EventDetail, EventPage, detail_out, event_out
from ._module import Ctx, module
from ._times import SERVICE, invalid, read_when, show_in, span, time_range

Query = Annotated[str, Field(min_length=1, max_length=200, description="words in title, description, place or people")]
Expand = Annotated[
    bool, Field(description="true: each occurrence of a recurring event; false: each series once, with its rule")
]


class Changes(EventPage):
    sync_token: str | None = Field(None, description="on the last page: pass later to get only what changed since")


def _items(ctx: Ctx, body: dict[str, Any]) -> list[dict[str, Any]]:
    return ctx.http.parse(list[dict[str, Any]], body.get("items", []))


@module.tool(read_only=True)
async def list_events(
    ctx: Ctx,
    calendar_id: CalendarId = "primary",
    time_min: RangeStart = None,
    time_max: RangeEnd = None,
    time_zone: TimeZoneName = None,
    query: Annotated[Query | None, Field(description="only events matching these words")] = None,
    expand_recurring: Expand = True,
    limit: Limit = 50,
    cursor: Cursor = None,
) -> EventPage:
    """Events overlapping a time range (default: 7 days from today), in start order, times in one zone."""
    tz = await zone_for(ctx, calendar_id, time_zone)
    start, end = time_range(time_min, time_max, tz, now())
    params = {
        "timeMin": show_in(start, tz),
        "timeMax": show_in(end, tz),
        "singleEvents": "true" if expand_recurring else "false",
        **({"orderBy": "startTime"} if expand_recurring else {}),  # Google orders only occurrences by start
        **({"q": query} if query else {}),
    }

    def read(body: dict[str, Any]) -> list[Event]:
        return [event_out(raw, tz) for raw in _items(ctx, body)]

    with google_errors(f"calendar {calendar_id}"):
        page = await google_paged(ctx.http, events_url(calendar_id), params, read, limit=limit, cursor=cursor)
    return EventPage(items=page.items, next_cursor=page.next_cursor, time_zone=tz.key)


@module.tool(read_only=True)
async def search_events(
    ctx: Ctx,
    query: Query,
    calendar_ids: Annotated[
        list[CalendarId], Field(min_length=1, max_length=10, description="calendars to search together")
    ] = ["primary"],  # noqa: B006 - pydantic copies defaults
    time_min: Annotated[
        RangeStart, Field(description="from; default today 00:00 (pass a past day to look back)")
    ] = None,
    time_max: Annotated[RangeEnd, Field(description="until (exclusive); default a year after time_min")] = None,
    time_zone: TimeZoneName = None,
    limit: Limit = 25,
    cursor: Cursor = None,
) -> EventPage:
    """Find events by words across one or more calendars, merged in start order; each names its calendar_id."""
    tz = await zone_for(ctx, calendar_ids[0], time_zone)
    start, end = time_range(time_min, time_max, tz, now(), default_days=365)
    base = {"q": query, "timeMin": show_in(start, tz), "timeMax": show_in(end, tz)}
    params = {**base, "singleEvents": "true", "orderBy": "startTime", "maxResults": limit}
    places = _resume(cursor, len(calendar_ids))
    pages: dict[int, tuple[list[dict[str, Any]], str | None, str | None, int]] = {}
    for index, calendar_id in enumerate(calendar_ids):
        place = places[index]
        if place is None:
            continue
        token, skip = place
        with google_errors(f"calendar {calendar_id}"):
            found = await ctx.http.get_json(
                events_url(calendar_id), params={**params, **({"pageToken": token} if token else {})}
            )
        body = ctx.http.parse(dict[str, Any], found)
        pages[index] = (_items(ctx, body)[skip:], page_token(body), token, skip)

    def begins(raw: dict[str, Any]) -> datetime:
        when = read_when(raw.get("start"), tz)
        return span(when, tz) if when is not None else start

    # a calendar with more pages bounds what may be shown now: its next page may start before the others' rest
    bounds = [begins(items[-1]) if items else start for items, following, _, _ in pages.values() if following]
    limit_at = min(bounds) if bounds else None
    ready = sorted(
        (begins(raw), index, position, raw)
        for index, (items, _, _, _) in pages.items()
        for position, raw in enumerate(items)
        if limit_at is None or begins(raw) <= limit_at
    )[:limit]
    taken = {index: 0 for index in pages}
    for _, index, _, _ in ready:
        taken[index] += 1
    for index, (items, following, token, skip) in pages.items():
        if taken[index] < len(items):
            places[index] = (token, skip + taken[index])
        else:
            places[index] = (following, 0) if following else None
    next_cursor = None
    if any(place is not None for place in places):
        try:
            next_cursor = encode_cursor({"at": [list(p) if p else None for p in places]})
        except ValueError:
            raise invalid("too many calendars to page through at once; search fewer", "calendar_ids") from None
    shown = [event_out(raw, tz, calendar_ids[index]) for _, index, _, raw in ready]
    return EventPage(items=shown, next_cursor=next_cursor, time_zone=tz.key)


def _resume(cursor: str | None, count: int) -> list[tuple[str | None, int] | None]:
    if not cursor:
        return [(None, 0)] * count
    state = decode_cursor(cursor, service=SERVICE).get("at")
    places: list[tuple[str | None, int] | None] = []
    if isinstance(state, list) and len(state) == count:
        for place in state:
            if place is None:
                places.append(None)
            elif (
                isinstance(place, list)
                and len(place) == 2
                and (place[0] is None or isinstance(place[0], str))
                and isinstance(place[1], int)
                and place[1] >= 0
            ):
                places.append((place[0], place[1]))
    if len(places) != count:
        raise invalid("cursor is not one this tool returned for these calendar_ids; omit it to start over", "cursor")
    return places


@module.tool(read_only=True)
async def get_event(
    ctx: Ctx,
    event_id: EventId,
    calendar_id: CalendarId = "primary",
    time_zone: TimeZoneName = None,
    offset: Offset = 0,
    max_chars: MaxChars = 8000,
) -> EventDetail:
    """One event in full: description, attendees and their answers, organizer, Meet link, reminders, rule."""
    tz = await zone_for(ctx, calendar_id, time_zone)
    with google_errors(f"event {event_id}"):
        raw = ctx.http.parse(dict[str, Any], await ctx.http.get_json(events_url(calendar_id, event_id)))
    return detail_out(raw, tz, calendar_id, offset=offset, max_chars=max_chars)


@module.tool(read_only=True)
async def list_event_instances(
    ctx: Ctx,
    event_id: Annotated[EventId, Field(description="the series (a recurring_event_id)")],
    calendar_id: CalendarId = "primary",
    time_min: RangeStart = None,
    time_max: Annotated[RangeEnd, Field(description="until (exclusive); default a year after time_min")] = None,
    time_zone: TimeZoneName = None,
    limit: Limit = 50,
    cursor: Cursor = None,
) -> EventPage:
    """The occurrences of a recurring series in a time range, each with its own id for update_event."""
    tz = await zone_for(ctx, calendar_id, time_zone)
    start, end = time_range(time_min, time_max, tz, now(), default_days=365)
    params = {"timeMin": show_in(start, tz), "timeMax": show_in(end, tz)}

    def read(body: dict[str, Any]) -> list[Event]:
        return [event_out(raw, tz) for raw in _items(ctx, body)]

    url = f"{events_url(calendar_id, event_id)}/instances"
    with google_errors(f"series {event_id}"):
        page = await google_paged(ctx.http, url, params, read, limit=limit, cursor=cursor)
    return EventPage(items=page.items, next_cursor=page.next_cursor, time_zone=tz.key)


@module.tool(read_only=True)
async def get_event_changes(
    ctx: Ctx,
    calendar_id: CalendarId = "primary",
    sync_token: Annotated[
        str | None,
        Field(max_length=2000, pattern=r"^[A-Za-z0-9_\-=+/.]+$", description="from a previous last page"),
    ] = None,
    time_zone: TimeZoneName = None,
    limit: Limit = 100,
    cursor: Cursor = None,
) -> Changes:
    """Sync: without sync_token every event (page on), then sync_token; with it, only what changed since."""
    tz = await zone_for(ctx, calendar_id, time_zone)
    params = {"syncToken": sync_token} if sync_token else {"showDeleted": "true"}
    last: dict[str, Any] = {}

    def read(body: dict[str, Any]) -> list[Event]:
        return [event_out(raw, tz) for raw in _items(ctx, body)]

    try:
        with google_errors(f"calendar {calendar_id}"):
            page = await google_paged(
                ctx.http, events_url(calendar_id), params, read, limit=limit, cursor=cursor, last=last
            )
    except NotFound as exc:
        if exc.data.get("status") != 410:
            raise
        raise NotFound(
            f"{SERVICE}: the sync_token has expired (Google answered 410 Gone); call again without it for a full sync",
            {**exc.data, "field": "sync_token"},
        ) from None
    token = last.get("nextSyncToken") if page.next_cursor is None else None
    return Changes(
        items=page.items,
        next_cursor=page.next_cursor,
        time_zone=tz.key,
        sync_token=token if isinstance(token, str) else None,
    )
