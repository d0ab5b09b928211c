"""Tools that write events: create (with an optional conflict check), quick add, move, answer an invitation;
and the request body every write shares."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.modules import Conflict

from ._common import CalendarId, EventId, Notify, TimeText, TimeZoneName, events_url, google_errors, zone_for
from ._freebusy import busy_models, query_busy
from ._models import Created, Event, EventDetail, detail_out, event_out, written
from ._module import Ctx, module
from ._series import LINE_PATTERN, check
from ._times import SERVICE, day_start, event_times, invalid, read_when

Summary = Annotated[str, Field(min_length=1, max_length=1024)]
Description = Annotated[str, Field(max_length=8192)]
Location = Annotated[str, Field(max_length=1024)]
Email = Annotated[str, Field(max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Attendees = Annotated[list[Email], Field(max_length=100, description="emails to invite")]
Start = Annotated[
    TimeText, Field(description="YYYY-MM-DD (all day), YYYY-MM-DDTHH:MM (local, in time_zone) or RFC 3339 with offset")
]
End = Annotated[
    TimeText | None, Field(description="all day: the LAST day, inclusive (default: the start day); else the end time")
]
Duration = Annotated[int | None, Field(ge=1, le=44_640, description="minutes, instead of end (timed events)")]
Recurrence = Annotated[
    list[Annotated[str, Field(pattern=LINE_PATTERN)]],
    Field(max_length=20, description="RFC 5545 lines, e.g. RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10"),
]
ColorId = Annotated[str, Field(pattern=r"^\d{1,2}$", description="from list_colors")]
ShowAs = Literal["busy", "free"]
Visibility = Literal["default", "public", "private"]
Meet = Annotated[bool, Field(description="add a Google Meet link")]
Zone = Annotated[TimeZoneName, Field(description="IANA zone for local times, sent as the event's zone")]


Reminders = Annotated[
    list[Annotated[str, Field(pattern=r"^(email:)?\d{1,5}$")]],
    Field(max_length=5, description='minutes before: "10" (popup) or "email:1440"; []: none; omit: the default'),
]
MAX_REMINDER = 40_320  # Google's limit: four weeks


def reminder_overrides(reminders: list[str]) -> list[dict[str, Any]]:
    """Raises: InvalidArgument: more than four weeks before."""
    out = []
    for text in reminders:
        method, _, minutes = text.rpartition(":")
        if int(minutes) > MAX_REMINDER:
            raise invalid(f"{text!r}: at most {MAX_REMINDER} minutes (four weeks) before", "reminders")
        out.append({"method": method or "popup", "minutes": int(minutes)})
    return out


def meet_request() -> dict[str, Any]:
    return {"createRequest": {"requestId": uuid.uuid4().hex, "conferenceSolutionKey": {"type": "hangoutsMeet"}}}


def fields_body(
    *,
    summary: str | None = None,
    description: str | None = None,
    location: str | None = None,
    attendees: list[str] | None = None,
    reminders: list[str] | None = None,
    recurrence: list[str] | None = None,
    color_id: str | None = None,
    show_as: str | None = None,
    visibility: str | None = None,
) -> dict[str, Any]:
    """Google's Event fields for what the caller gave (None: left as it is)."""
    body: dict[str, Any] = {}
    if summary is not None:
        body["summary"] = summary
    if description is not None:
        body["description"] = description
    if location is not None:
        body["location"] = location
    if attendees is not None:
        body["attendees"] = [{"email": email} for email in attendees]
    if reminders is not None:
        body["reminders"] = {"useDefault": False, "overrides": reminder_overrides(reminders)}
    if recurrence is not None:
        body["recurrence"] = check(recurrence)
    if color_id is not None:
        body["colorId"] = color_id
    if show_as is not None:
        body["transparency"] = "transparent" if show_as == "free" else "opaque"
    if visibility is not None:
        body["visibility"] = visibility
    return body


def write_params(notify: str, body: dict[str, Any]) -> dict[str, str]:
    # Google ignores conferenceData unless told the client understands it
    return {"sendUpdates": notify, **({"conferenceDataVersion": "1"} if "conferenceData" in body else {})}


@module.tool()
async def create_event(
    ctx: Ctx,
    summary: Summary,
    start: Start,
    end: End = None,
    duration_minutes: Duration = None,
    time_zone: Zone = None,
    calendar_id: CalendarId = "primary",
    description: Description | None = None,
    location: Location | None = None,
    attendees: Attendees | None = None,
    meet: Meet = False,
    reminders: Reminders | None = None,
    recurrence: Recurrence | None = None,
    color_id: ColorId | None = None,
    show_as: ShowAs | None = None,
    visibility: Visibility | None = None,
    conflicts: Annotated[
        Literal["ignore", "warn", "refuse"],
        Field(description="check free/busy first (a series: its first time): refuse, or create and warn"),
    ] = "ignore",
    notify: Notify = "all",
) -> Created:
    """Create an event: all-day or timed, with attendees, a Meet link, reminders, a recurrence rule."""
    tz = await zone_for(ctx, calendar_id, time_zone)
    begins, ends = event_times(start, end, duration_minutes, tz)
    body: dict[str, Any] = {
        "summary": summary,
        "start": begins,
        "end": ends,
        **fields_body(
            description=description,
            location=location,
            attendees=attendees,
            reminders=reminders,
            recurrence=recurrence,
            color_id=color_id,
            show_as=show_as,
            visibility=visibility,
        ),
    }
    if meet:
        body["conferenceData"] = meet_request()
    clashes = []
    if conflicts != "ignore":
        first, after = read_when(begins, tz), read_when(ends, tz)
        assert first is not None and after is not None
        window = [w if isinstance(w, datetime) else day_start(w, tz) for w in (first, after)]
        with google_errors(f"calendar {calendar_id}"):
            clashes = busy_models(await query_busy(ctx.http, [calendar_id], window[0], window[1], tz), tz)
        if clashes and conflicts == "refuse":
            more = f" and {len(clashes) - 1} more" if len(clashes) > 1 else ""
            raise Conflict(
                f"{SERVICE}: the event overlaps busy time: {clashes[0].start} to {clashes[0].end}{more}; nothing was "
                "created (conflicts=warn creates it anyway)",
                {"service": SERVICE, "conflicts": [c.model_dump() for c in clashes]},
            )
    with google_errors(f"calendar {calendar_id}"):
        made = await ctx.http.post_json(events_url(calendar_id), body, params=write_params(notify, body))
    return written(Created, ctx.http.parse(dict[str, Any], made), tz, calendar_id, conflicts=clashes)


@module.tool()
async def quick_add_event(
    ctx: Ctx,
    text: Annotated[str, Field(min_length=1, max_length=1000, description='e.g. "Lunch with Ann tomorrow 12:30"')],
    calendar_id: CalendarId = "primary",
    time_zone: Annotated[
        TimeZoneName, Field(description="zone of the result; the text is read in the calendar's")
    ] = None,
    notify: Notify = "none",
) -> EventDetail:
    """Create an event from a sentence the way Google's quick add reads it; check the times it chose."""
    tz = await zone_for(ctx, calendar_id, time_zone)
    with google_errors(f"calendar {calendar_id}"):
        made = await ctx.http.post_json(
            f"{events_url(calendar_id)}/quickAdd", params={"text": text, "sendUpdates": notify}
        )
    return detail_out(ctx.http.parse(dict[str, Any], made), tz, calendar_id)


@module.tool()
async def move_event(
    ctx: Ctx,
    event_id: EventId,
    destination: Annotated[CalendarId, Field(description="the calendar to move it to")],
    calendar_id: CalendarId = "primary",
    time_zone: Annotated[TimeZoneName, Field(description="zone of the result; default the destination's")] = None,
    notify: Notify = "all",
) -> Event:
    """Move an event (a whole series, not one occurrence) to another calendar; its id stays the same."""
    tz = await zone_for(ctx, destination, time_zone)
    with google_errors(f"event {event_id}"):
        moved = await ctx.http.post_json(
            f"{events_url(calendar_id, event_id)}/move", params={"destination": destination, "sendUpdates": notify}
        )
    return event_out(ctx.http.parse(dict[str, Any], moved), tz, destination, with_zone=True)


@module.tool(idempotent=True)
async def respond_to_event(
    ctx: Ctx,
    event_id: EventId,
    response: Literal["accepted", "declined", "tentative"],
    calendar_id: CalendarId = "primary",
    comment: Annotated[str | None, Field(max_length=1000, description="a note to the organizer")] = None,
    scope: Annotated[
        Literal["this", "all"], Field(description="an occurrence: answer for it alone, or for its whole series")
    ] = "this",
    time_zone: TimeZoneName = None,
    notify: Annotated[Notify, Field(description="all: tell the organizer")] = "all",
) -> Event:
    """Answer an invitation as the account (its own attendee entry): accepted, declined or tentative."""
    with google_errors(f"event {event_id}"):
        raw = ctx.http.parse(dict[str, Any], await ctx.http.get_json(events_url(calendar_id, event_id)))
        target = event_id
        series = raw.get("recurringEventId")
        if scope == "all" and isinstance(series, str):
            target = series
            raw = ctx.http.parse(dict[str, Any], await ctx.http.get_json(events_url(calendar_id, target)))
    people = ctx.http.parse(list[dict[str, Any]], raw.get("attendees") or [])
    mine = next((p for p in people if p.get("self")), None)
    if mine is None:
        raise invalid(
            f"the account is not among the attendees of {target}; only invitations take an answer", "event_id"
        )
    mine["responseStatus"] = response
    if comment is not None:
        mine["comment"] = comment
    tz = await zone_for(ctx, calendar_id, time_zone)
    with google_errors(f"event {target}"):
        done = await ctx.http.patch_json(
            events_url(calendar_id, target), {"attendees": people}, params={"sendUpdates": notify}
        )
    return event_out(ctx.http.parse(dict[str, Any], done), tz, calendar_id, with_zone=True)
