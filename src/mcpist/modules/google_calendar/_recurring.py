"""update_event and delete_event, with their scope over a recurring series.

An occurrence of a series has its own id (`<series>_<original start>`) and names its series in
`recurringEventId`. With that id:
- "this": the occurrence alone is changed (Google keeps it as an exception) or cancelled.
- "all": the series' master is changed; a new start or end moves every occurrence as this one moves (same
  number of days, the new local time of day), so the series keeps its first date and its wall-clock time across
  DST. Moving to another day needs a new `recurrence` when the rule names days (BYDAY...).
- "following": the series is split. A new series starts at this occurrence (the master's fields, the changes,
  the rule with a COUNT lowered by the occurrences before), then the master's rule gets UNTIL = just before this
  occurrence (COUNT dropped). If ending the master fails, the new series is deleted again. Occurrences after this
  one that were edited on their own do not carry over. From the first occurrence, "following" is "all".
  Deleting "following" only ends the master before this occurrence.
With a series' master id, "all" and "following" change the whole series; "this" is refused. A single event
ignores the scope.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field

from mcpist.modules import MCPistError

from ._common import CalendarId, EventId, Notify, TimeText, events_url, google_errors, zone_for
from ._models import Deleted, Updated, written
from ._module import Ctx, module
from ._series import check, continued, counted, cut, same_start, shift_series
from ._times import all_day, event_times, invalid, parse, read_when, show_in, span, timed, until_before
from ._write import (
    Attendees,
    ColorId,
    Description,
    Duration,
    Location,
    Recurrence,
    Reminders,
    ShowAs,
    Visibility,
    Zone,
    fields_body,
    meet_request,
    write_params,
)

Scope = Annotated[
    Literal["this", "following", "all"],
    Field(description="an occurrence: it alone, it and later ones (splits the series), or all"),
]
# what a new series split from a master keeps; read-only and per-event fields stay behind
COPIED = (
    "summary",
    "description",
    "location",
    "colorId",
    "transparency",
    "visibility",
    "reminders",
    "guestsCanInviteOthers",
    "guestsCanModify",
    "guestsCanSeeOtherGuests",
    "anyoneCanAddSelf",
)
ATTENDEE_KEYS = ("email", "displayName", "optional", "responseStatus", "comment", "additionalGuests", "resource")
MAX_COUNT_PAGES = 20


async def _get(ctx: Ctx, calendar_id: str, event_id: str) -> dict[str, Any]:
    with google_errors(f"event {event_id}"):
        return ctx.http.parse(dict[str, Any], await ctx.http.get_json(events_url(calendar_id, event_id)))


def _whole_series(event_id: str) -> MCPistError:
    return invalid(
        f"{event_id} is a whole series: scope=all changes every occurrence; for one occurrence pass its own id "
        "(list_event_instances)",
        "scope",
    )


def _as_text(when: Any, tz: ZoneInfo) -> str:
    return show_in(when, tz) if isinstance(when, datetime) else str(when.isoformat())


def new_times(
    current: dict[str, Any], start: str | None, end: str | None, minutes: int | None, tz: ZoneInfo
) -> tuple[dict[str, str], dict[str, str]] | None:
    """The event's start and end after the change; a new start alone keeps its length. None: no change."""
    began, ended = read_when(current.get("start"), tz), read_when(current.get("end"), tz)
    if start is None:
        if end is None and minutes is None:
            return None
        if began is None:
            raise invalid("the event has no start to keep; give start too", "start")
        return event_times(_as_text(began, tz), end, minutes, tz)
    if end is None and minutes is None and began is not None and ended is not None:
        first = parse(start, tz, "start")
        if isinstance(first, datetime):
            if not isinstance(ended, datetime) or not isinstance(began, datetime):
                raise invalid("the event is all day: with a timed start give end or duration_minutes", "end")
            end = show_in(first + (ended - began), tz)
        elif not isinstance(began, datetime) and not isinstance(ended, datetime):
            end = (first + timedelta(days=max(1, (ended - began).days) - 1)).isoformat()
    return event_times(start, end, minutes, tz)


@module.tool()
async def update_event(
    ctx: Ctx,
    event_id: EventId,
    calendar_id: CalendarId = "primary",
    scope: Scope = "this",
    summary: Annotated[str | None, Field(min_length=1, max_length=1024)] = None,
    start: Annotated[TimeText | None, Field(description="as in create_event; alone it keeps the length")] = None,
    end: Annotated[TimeText | None, Field(description="all day: the LAST day, inclusive")] = None,
    duration_minutes: Duration = None,
    time_zone: Zone = None,
    description: Description | None = None,
    location: Location | None = None,
    attendees: Annotated[Attendees | None, Field(description="the full new list (replaces it)")] = None,
    meet: Annotated[bool | None, Field(description="true adds a Google Meet link, false removes it")] = None,
    reminders: Reminders | None = None,
    recurrence: Recurrence | None = None,
    color_id: ColorId | None = None,
    show_as: ShowAs | None = None,
    visibility: Visibility | None = None,
    notify: Notify = "all",
) -> Updated:
    """Change an event's fields (omitted ones stay); a new start alone keeps its length. Scope for series."""
    current = await _get(ctx, calendar_id, event_id)
    series = current.get("recurringEventId")
    is_master = bool(current.get("recurrence"))
    if is_master and scope == "this":
        raise _whole_series(event_id)
    if recurrence is not None and isinstance(series, str) and scope == "this":
        raise invalid("a rule belongs to the series: use scope=all or following", "recurrence")
    tz = await zone_for(ctx, calendar_id, time_zone)
    changes = fields_body(
        summary=summary,
        description=description,
        location=location,
        attendees=attendees,
        reminders=reminders,
        recurrence=recurrence,
        color_id=color_id,
        show_as=show_as,
        visibility=visibility,
    )
    if meet is not None:
        changes["conferenceData"] = meet_request() if meet else None
    times = new_times(current, start, end, duration_minutes, tz)
    if times is None and recurrence is not None and not is_master and not isinstance(series, str):
        times = _zoned(current, tz)  # Google expands a series in its start's zone, so it must name one
    if not isinstance(series, str) or scope == "this":
        if times is not None:
            changes["start"], changes["end"] = times
        return await _patch(ctx, calendar_id, event_id, changes, notify, tz)
    master = await _get(ctx, calendar_id, series)
    original = current.get("originalStartTime") or current.get("start") or {}
    if scope == "all" or same_start(original, master.get("start")):
        if times is not None:
            changes["start"], changes["end"] = shift_series(
                master, original, *times, tz, rules_given=recurrence is not None
            )
        return await _patch(ctx, calendar_id, series, changes, notify, tz)
    return await _split(ctx, calendar_id, master, original, changes, times, recurrence, notify, tz)


async def _patch(
    ctx: Ctx, calendar_id: str, event_id: str, changes: dict[str, Any], notify: str, tz: ZoneInfo
) -> Updated:
    if not changes:
        raise invalid("nothing to change: give at least one field", "event_id")
    with google_errors(f"event {event_id}"):
        done = await ctx.http.patch_json(
            events_url(calendar_id, event_id), changes, params=write_params(notify, changes)
        )
    return written(Updated, ctx.http.parse(dict[str, Any], done), tz, calendar_id)


async def _count_before(ctx: Ctx, calendar_id: str, series: str, original: dict[str, Any], tz: ZoneInfo) -> int:
    """How many occurrences (cancelled ones too: COUNT counts them) start before `original`."""
    when = read_when(original, tz)
    assert when is not None
    params: dict[str, Any] = {"timeMax": show_in(span(when, tz), tz), "showDeleted": "true", "maxResults": 250}
    total = 0
    with google_errors(f"series {series}"):
        for _ in range(MAX_COUNT_PAGES):
            body = ctx.http.parse(
                dict[str, Any], await ctx.http.get_json(f"{events_url(calendar_id, series)}/instances", params=params)
            )
            total += len(body.get("items") or [])
            token = body.get("nextPageToken")
            if not isinstance(token, str) or not token:
                return total
            params["pageToken"] = token
    raise invalid("the series has too many occurrences before this one to continue its COUNT; pass recurrence", "scope")


def _zoned(current: dict[str, Any], tz: ZoneInfo) -> tuple[dict[str, str], dict[str, str]] | None:
    began, ended = read_when(current.get("start"), tz), read_when(current.get("end"), tz)
    if isinstance(began, datetime) and isinstance(ended, datetime):
        return timed(began, tz), timed(ended, tz)
    return None


def _slot(master: dict[str, Any], original: dict[str, Any], tz: ZoneInfo) -> tuple[dict[str, str], dict[str, str]]:
    """The occurrence's own place in the series: its original start and the series' length."""
    first, last, at = (read_when(x, tz) for x in (master.get("start"), master.get("end"), original))
    if first is None or last is None or at is None:
        raise invalid("the series has no start and end to continue from", "scope")
    if isinstance(at, datetime):
        assert isinstance(first, datetime) and isinstance(last, datetime)
        return timed(at, tz), timed(at + (last - first), tz)
    return all_day(at), {"date": (at + (last - first)).isoformat()}


async def _split(
    ctx: Ctx,
    calendar_id: str,
    master: dict[str, Any],
    original: dict[str, Any],
    changes: dict[str, Any],
    times: tuple[dict[str, str], dict[str, str]] | None,
    recurrence: list[str] | None,
    notify: str,
    tz: ZoneInfo,
) -> Updated:
    series = str(master["id"])
    rules = [str(line) for line in master.get("recurrence") or []]
    if recurrence is not None:
        following = check(recurrence)
    else:
        done = await _count_before(ctx, calendar_id, series, original, tz) if counted(rules) else 0
        following = continued(rules, done)
    body: dict[str, Any] = {key: master[key] for key in COPIED if key in master}
    if master.get("attendees"):
        body["attendees"] = [{k: v for k, v in person.items() if k in ATTENDEE_KEYS} for person in master["attendees"]]
    conference = master.get("conferenceData")
    if isinstance(conference, dict) and conference.get("conferenceId"):
        body["conferenceData"] = {
            k: conference[k] for k in ("conferenceId", "conferenceSolution", "entryPoints") if k in conference
        }
    body.update(changes)
    if body.get("conferenceData") is None:
        body.pop("conferenceData", None)
    body["start"], body["end"] = times if times is not None else _slot(master, original, tz)
    body["recurrence"] = following
    with google_errors(f"calendar {calendar_id}"):
        made = ctx.http.parse(
            dict[str, Any],
            await ctx.http.post_json(events_url(calendar_id), body, params=write_params(notify, body)),
        )
    try:
        with google_errors(f"event {series}"):
            await ctx.http.patch_json(
                events_url(calendar_id, series),
                {"recurrence": cut(rules, until_before(original))},
                params={"sendUpdates": notify},
            )
    except MCPistError:
        # two series would now overlap: take the new one back and report the failure
        with suppress(MCPistError):
            await ctx.http.request(
                "DELETE", events_url(calendar_id, str(made["id"])), params={"sendUpdates": "none"}, ok=(404, 410)
            )
        raise
    return written(Updated, made, tz, calendar_id, split_from=series)


@module.tool(destructive=True, idempotent=True)
async def delete_event(
    ctx: Ctx,
    event_id: EventId,
    calendar_id: CalendarId = "primary",
    scope: Scope = "this",
    notify: Notify = "all",
) -> Deleted:
    """Delete an event, one occurrence of a series, the occurrences from one on, or a whole series."""
    current = await _get(ctx, calendar_id, event_id)
    series = current.get("recurringEventId")
    if current.get("recurrence") and scope == "this":
        raise _whole_series(event_id)
    if not isinstance(series, str) or scope == "this":
        return await _delete(ctx, calendar_id, event_id, notify)
    if scope == "all":
        return await _delete(ctx, calendar_id, series, notify)
    master = await _get(ctx, calendar_id, series)
    original = current.get("originalStartTime") or current.get("start") or {}
    if same_start(original, master.get("start")):
        return await _delete(ctx, calendar_id, series, notify)
    rules = [str(line) for line in master.get("recurrence") or []]
    with google_errors(f"event {series}"):
        await ctx.http.patch_json(
            events_url(calendar_id, series),
            {"recurrence": cut(rules, until_before(original))},
            params={"sendUpdates": notify},
        )
    return Deleted(id=event_id, note=f"series {series} now ends before this occurrence")


async def _delete(ctx: Ctx, calendar_id: str, event_id: str, notify: str) -> Deleted:
    with google_errors(f"event {event_id}"):
        response = await ctx.http.request(
            "DELETE", events_url(calendar_id, event_id), params={"sendUpdates": notify}, ok=(410,), retry=True
        )
    if response.status_code == 410:
        return Deleted(id=event_id, note="already deleted")
    return Deleted(id=event_id)
