"""Free and busy time: Google's freeBusy for calendars of this account and of the caller's other accounts of
this module, merged and cut to working hours in one zone."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from mcpist.upstream import ServiceClient

from ._common import CalendarId, RangeEnd, RangeStart, TimeZoneName, now, zone_for
from ._models import Busy
from ._module import Ctx, module
from ._times import Interval, clock, free_slots, invalid, read_when, show_in, time_range, working_windows

MAX_DAYS = 62
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
Clock = Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$|^24:00$")]
AccountRef = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9][a-z0-9._-]{0,63}(:[^\s/?]{1,255})?$",
        description="another of your google_calendar accounts: NAME (its primary calendar) or NAME:CALENDAR_ID",
    ),
]


class Slot(BaseModel):
    start: str
    end: str
    minutes: int


class FreeTime(BaseModel):
    time_zone: str = Field(description="the zone of the slots and of the working hours")
    slots: list[Slot]
    truncated: bool = Field(False, description="more slots follow: ask again from the last slot's end")
    checked: list[str] = Field(description="calendars whose busy time counted (account:calendar for other accounts)")
    unavailable: list[str] = Field([], description="calendars Google could not read: their busy time is NOT counted")


class Period(BaseModel):
    start: str
    end: str


class CalendarBusy(BaseModel):
    calendar: str
    busy: list[Period] = []
    error: str | None = Field(None, description="why Google gave no busy time (notFound: no access)")


class FreeBusy(BaseModel):
    time_zone: str
    calendars: list[CalendarBusy]


Found = dict[str, tuple[list[Interval], str | None]]


async def query_busy(
    http: ServiceClient, calendar_ids: Sequence[str], start: datetime, end: datetime, tz: ZoneInfo
) -> Found:
    """Each calendar's busy intervals in `[start, end)`, or the reason Google gave none."""
    body = {
        "timeMin": show_in(start, tz),
        "timeMax": show_in(end, tz),
        "timeZone": tz.key,
        "items": [{"id": calendar_id} for calendar_id in calendar_ids],
    }
    # a read sent as POST: safe to repeat
    answer = http.parse(dict[str, Any], await http.post_json("/freeBusy", body, retry=True))
    calendars = http.parse(dict[str, dict[str, Any]], answer.get("calendars") or {})
    found: Found = {}
    unasked = [key for key in calendars if key not in calendar_ids]
    unanswered = [calendar_id for calendar_id in calendar_ids if calendar_id not in calendars]
    for calendar_id in calendar_ids:
        entry = calendars.get(calendar_id)
        if entry is None and len(unasked) == 1 and unanswered == [calendar_id]:
            entry = calendars[unasked[0]]  # "primary" answered under the account's own address
        if entry is None:
            found[calendar_id] = ([], "missing")
            continue
        errors = [e for e in entry.get("errors") or [] if isinstance(e, dict)]
        if errors:
            found[calendar_id] = ([], str(errors[0].get("reason") or "error"))
            continue
        intervals: list[Interval] = []
        for period in http.parse(list[dict[str, Any]], entry.get("busy") or []):
            begin, finish = read_when(period.get("start")), read_when(period.get("end"))
            if isinstance(begin, datetime) and isinstance(finish, datetime) and finish > start and begin < end:
                intervals.append((begin, finish))
        found[calendar_id] = (intervals, None)
    return found


def busy_models(found: Found, tz: ZoneInfo, label: str = "") -> list[Busy]:
    return [
        Busy(start=show_in(a, tz), end=show_in(b, tz), calendar=f"{label}{calendar_id}")
        for calendar_id, (intervals, _) in found.items()
        for a, b in intervals
    ]


def _plan(own: str | None, calendar_ids: Sequence[str], accounts: Sequence[str]) -> dict[str | None, list[str]]:
    """Which calendars to ask each account for: None is this call's account."""
    plan: dict[str | None, list[str]] = {None: list(dict.fromkeys(calendar_ids))}
    for ref in accounts:
        name, _, calendar_id = ref.partition(":")
        key = None if name == own else name
        wanted = plan.setdefault(key, [])
        if (calendar_id or "primary") not in wanted:
            wanted.append(calendar_id or "primary")
    return plan


@module.tool(read_only=True)
async def find_free_time(
    ctx: Ctx,
    time_min: RangeStart = None,
    time_max: Annotated[
        RangeEnd, Field(description="until (exclusive; a day is included whole); default 7 days")
    ] = None,
    time_zone: Annotated[TimeZoneName, Field(description="IANA zone of the working hours and results")] = None,
    calendar_ids: Annotated[
        list[CalendarId], Field(min_length=1, max_length=20, description="this account's calendars to count")
    ] = ["primary"],  # noqa: B006 - pydantic copies defaults
    accounts: Annotated[list[AccountRef], Field(max_length=10)] = [],  # noqa: B006
    min_minutes: Annotated[int, Field(ge=5, le=1440, description="shortest slot worth returning")] = 30,
    day_start: Annotated[Clock, Field(description="working hours from HH:MM")] = "09:00",
    day_end: Annotated[Clock, Field(description="to HH:MM (24:00: midnight)")] = "17:00",
    weekdays: Annotated[list[Weekday], Field(min_length=1, max_length=7)] = ["mon", "tue", "wed", "thu", "fri"],  # noqa: B006
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
) -> FreeTime:
    """Free slots within working hours when no given calendar, of this and other accounts, is busy."""
    opens, closes = clock(day_start, "day_start"), clock(day_end, "day_end")
    if opens is None:
        raise invalid("24:00 ends a day; working hours start at 00:00-23:59", "day_start")
    if closes is not None and closes <= opens:
        raise invalid("must be after day_start (a night shift is two calls)", "day_end")
    tz = await zone_for(ctx, calendar_ids[0], time_zone)
    start, end = time_range(time_min, time_max, tz, now(), max_days=MAX_DAYS)
    own = ctx.account.name if ctx.account is not None else None
    busy: list[Interval] = []
    checked: list[str] = []
    unavailable: list[str] = []
    for name, wanted in _plan(own, calendar_ids, accounts).items():
        http = ctx.http if name is None else await ctx.http_for(name)
        found = await query_busy(http, wanted, start, end, tz)
        for calendar_id, (intervals, error) in found.items():
            label = calendar_id if name is None else f"{name}:{calendar_id}"
            if error is not None:
                unavailable.append(f"{label}: {error}")
            else:
                checked.append(label)
                busy.extend(intervals)
    windows = working_windows(start, end, tz, opens, closes, [WEEKDAYS.index(day) for day in weekdays])
    slots = free_slots(windows, busy, min_minutes)
    return FreeTime(
        time_zone=tz.key,
        slots=[
            Slot(start=show_in(a, tz), end=show_in(b, tz), minutes=int((b - a).total_seconds() // 60))
            for a, b in slots[:limit]
        ],
        truncated=len(slots) > limit,
        checked=checked,
        unavailable=unavailable,
    )


@module.tool(read_only=True)
async def get_freebusy(
    ctx: Ctx,
    calendar_ids: Annotated[
        list[CalendarId], Field(min_length=1, max_length=50, description="calendar ids or people's emails")
    ],
    time_min: RangeStart = None,
    time_max: RangeEnd = None,
    time_zone: TimeZoneName = None,
) -> FreeBusy:
    """Busy periods of calendars, yours or other people's (by email), without the events' details."""
    tz = await zone_for(ctx, "primary", time_zone)
    start, end = time_range(time_min, time_max, tz, now(), max_days=MAX_DAYS)
    found = await query_busy(ctx.http, calendar_ids, start, end, tz)
    return FreeBusy(
        time_zone=tz.key,
        calendars=[
            CalendarBusy(
                calendar=calendar_id,
                busy=[Period(start=show_in(a, tz), end=show_in(b, tz)) for a, b in intervals],
                error=error,
            )
            for calendar_id, (intervals, error) in found.items()
        ],
    )
