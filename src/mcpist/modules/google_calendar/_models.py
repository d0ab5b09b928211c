"""Compact results built from Google's JSON: events with their times shown in one zone, calendars, free time."""

from __future__ import annotations

from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from mcpist.upstream import Page, clip

from ._times import show

START = "YYYY-MM-DD if all_day, else RFC 3339 with the offset of time_zone"
END = "all day: the LAST day, inclusive; else RFC 3339, exclusive"


class Event(BaseModel):
    id: str
    calendar_id: str | None = None
    summary: str | None = None
    all_day: bool = False
    start: str | None = Field(None, description=START)
    end: str | None = Field(None, description=END)
    time_zone: str | None = Field(None, description="the zone of start and end")
    status: str | None = Field(None, description="tentative or cancelled; none: confirmed")
    location: str | None = None
    meet_link: str | None = None
    my_response: str | None = Field(None, description="your answer, when invited")
    recurring_event_id: str | None = Field(None, description="an occurrence's series")
    recurrence: list[str] | None = Field(None, description="a series' rule lines")
    url: str | None = None


class Attendee(BaseModel):
    email: str | None = None
    name: str | None = None
    response: str | None = None
    optional: bool | None = None
    organizer: bool | None = None
    me: bool | None = None


class Reminder(BaseModel):
    minutes: int
    method: str = "popup"


class EventDetail(Event):
    description: str | None = Field(None, description="from `offset`; HTML as Google keeps it")
    description_next_offset: int | None = Field(None, description="more description: pass as offset")
    organizer: str | None = None
    attendees: list[Attendee] = []
    reminders: list[Reminder] | None = Field(None, description="none shown: the calendar's default reminders")
    color_id: str | None = None
    show_as: str | None = Field(None, description="busy or free")
    visibility: str | None = None
    original_start: str | None = Field(None, description="an occurrence's start in its series")
    event_time_zone: str | None = Field(None, description="the zone the event was made in, when another")
    conference: str | None = Field(None, description="Meet link creation: pending, success or failure")
    created: str | None = None
    updated: str | None = None


class Busy(BaseModel):
    start: str
    end: str
    calendar: str = Field(description="calendar id, as account:calendar for another account")


class Written(Event):
    attendees: list[str] = Field([], description="invited emails")
    conference: str | None = Field(None, description="Meet link creation: pending, success or failure")


class Created(Written):
    conflicts: list[Busy] = Field([], description="busy time the event overlaps (conflicts=warn)")


class Updated(Written):
    split_from: str | None = Field(None, description="scope=following: the series it was split from")


class EventPage(Page[Event]):
    time_zone: str = Field(description="the zone every start and end is shown in")


class Calendar(BaseModel):
    id: str
    summary: str | None = None
    primary: bool = False
    access_role: str | None = Field(None, description="owner, writer, reader or freeBusyReader")
    time_zone: str | None = None
    description: str | None = None
    color: str | None = None
    hidden: bool = False


class Deleted(BaseModel):
    id: str
    deleted: bool = True
    note: str | None = None


class Color(BaseModel):
    id: str
    background: str | None = None
    foreground: str | None = None


class Colors(BaseModel):
    event: list[Color] = Field(description="event color_id values")
    calendar: list[Color]


def _video(raw: dict[str, Any]) -> str | None:
    link = raw.get("hangoutLink")
    if isinstance(link, str):
        return link
    for entry in (raw.get("conferenceData") or {}).get("entryPoints") or []:
        if isinstance(entry, dict) and entry.get("entryPointType") == "video" and isinstance(entry.get("uri"), str):
            return str(entry["uri"])
    return None


def _mine(raw: dict[str, Any]) -> str | None:
    for person in raw.get("attendees") or []:
        if isinstance(person, dict) and person.get("self"):
            value = person.get("responseStatus")
            return str(value) if value is not None else None
    return None


def event_out(raw: dict[str, Any], tz: ZoneInfo, calendar_id: str | None = None, *, with_zone: bool = False) -> Event:
    """An event as a list shows it; `with_zone` names the zone on the event itself."""
    return Event(**_event_fields(raw, tz, calendar_id, with_zone))


def _event_fields(raw: dict[str, Any], tz: ZoneInfo, calendar_id: str | None, with_zone: bool) -> dict[str, Any]:
    start, end = raw.get("start"), raw.get("end")
    status = raw.get("status")
    return {
        "id": str(raw.get("id", "")),
        "calendar_id": calendar_id,
        "summary": raw.get("summary"),
        "all_day": isinstance(start, dict) and "date" in start,
        "start": show(start, tz),
        "end": show(end, tz, end=True),
        "time_zone": tz.key if with_zone else None,
        "status": status if status != "confirmed" else None,
        "location": raw.get("location"),
        "meet_link": _video(raw),
        "my_response": _mine(raw),
        "recurring_event_id": raw.get("recurringEventId"),
        "recurrence": raw.get("recurrence"),
        "url": raw.get("htmlLink"),
    }


def detail_fields(
    raw: dict[str, Any], tz: ZoneInfo, calendar_id: str | None, *, offset: int = 0, max_chars: int = 8000
) -> dict[str, Any]:
    """Everything `EventDetail` holds, for it or a subclass."""
    text = clip(str(raw.get("description") or ""), offset=offset, max_chars=max_chars)
    reminders = raw.get("reminders") or {}
    own = raw.get("start", {}).get("timeZone") if isinstance(raw.get("start"), dict) else None
    status = ((raw.get("conferenceData") or {}).get("createRequest") or {}).get("status") or {}
    return {
        **_event_fields(raw, tz, calendar_id, True),
        "description": text.text or None,
        "description_next_offset": text.next_offset,
        "organizer": (raw.get("organizer") or {}).get("email"),
        "attendees": [
            Attendee(
                email=a.get("email"),
                name=a.get("displayName"),
                response=a.get("responseStatus"),
                optional=a.get("optional") or None,
                organizer=a.get("organizer") or None,
                me=a.get("self") or None,
            )
            for a in raw.get("attendees") or []
            if isinstance(a, dict)
        ],
        "reminders": None
        if reminders.get("useDefault", True)
        else [
            Reminder(minutes=int(r.get("minutes", 0)), method=r.get("method", "popup"))
            for r in reminders.get("overrides") or []
        ],
        "color_id": raw.get("colorId"),
        "show_as": "free" if raw.get("transparency") == "transparent" else "busy",
        "visibility": raw.get("visibility") if raw.get("visibility") not in (None, "default") else None,
        "original_start": show(raw.get("originalStartTime"), tz),
        "event_time_zone": own if isinstance(own, str) and own != tz.key else None,
        "conference": status.get("statusCode"),
        "created": raw.get("created"),
        "updated": raw.get("updated"),
    }


W = TypeVar("W", bound=Written)


def written(kind: type[W], raw: dict[str, Any], tz: ZoneInfo, calendar_id: str, **extra: Any) -> W:
    """What a write returns: the event as a list shows it, with its zone, invitees and Meet link status."""
    status = ((raw.get("conferenceData") or {}).get("createRequest") or {}).get("status") or {}
    return kind(
        **_event_fields(raw, tz, calendar_id, True),
        attendees=[str(a["email"]) for a in raw.get("attendees") or [] if isinstance(a, dict) and a.get("email")],
        conference=status.get("statusCode"),
        **extra,
    )


def detail_out(raw: dict[str, Any], tz: ZoneInfo, calendar_id: str | None, **clipping: int) -> EventDetail:
    return EventDetail(**detail_fields(raw, tz, calendar_id, **clipping))


def calendar_out(raw: dict[str, Any]) -> Calendar:
    return Calendar(
        id=str(raw.get("id", "")),
        summary=raw.get("summaryOverride") or raw.get("summary"),
        primary=bool(raw.get("primary")),
        access_role=raw.get("accessRole"),
        time_zone=raw.get("timeZone"),
        description=raw.get("description"),
        color=raw.get("backgroundColor"),
        hidden=bool(raw.get("hidden")),
    )
