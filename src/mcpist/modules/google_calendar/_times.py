"""Time zones, done once: what a caller's time means, what Google's times say, and free time between busy ones.

Three forms of input, one rule each:
- `YYYY-MM-DD` is a calendar day. An all-day event's end, as callers give and read it, is its LAST day
  (inclusive); Google's `end.date` is the day after (exclusive), and only this file converts between them.
  A day is never shifted by a time zone.
- `YYYY-MM-DDTHH:MM[:SS]` is a wall-clock time in the zone that applies (the caller's `time_zone`, else the
  calendar's). A time the clocks skip (a DST gap) or show twice (a DST overlap) is refused with the choices.
- RFC 3339 with `Z` or an offset is an instant; the zone then only decides how it is shown.

Times going out always carry the offset of the zone they are shown in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcpist.modules import InvalidArgument

SERVICE = "google_calendar"
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
LOCAL_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?")
INSTANT_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})")
CLOCK_RE = re.compile(r"([01]\d|2[0-3]):[0-5]\d|24:00")
TIME_PATTERN = r"^\d{4}-\d\d-\d\d(T[\d:.]{5,18}([Zz]|[+-]\d\d:\d\d)?)?$"  # loose: `parse` checks exactly

When = date | datetime
"""A caller's time: a `date` (a whole day) or an instant, an aware `datetime` in UTC.

Instants stay in UTC until shown: Python adds and compares two datetimes of the same zone by their wall
clocks, which is wrong across a DST change."""


def invalid(message: str, field: str | None = None, **data: Any) -> InvalidArgument:
    where = f"{field}: " if field else ""
    extra = {"field": field} if field else {}
    return InvalidArgument(f"{SERVICE}: {where}{message}", {"service": SERVICE, **extra, **data})


def zone(name: str, field: str = "time_zone") -> ZoneInfo:
    """The IANA zone `name`.

    Raises:
        InvalidArgument: no such zone (naming `field`).
    """
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid(f"{name!r} is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)", field) from None


def localize(naive: datetime, tz: ZoneInfo, field: str) -> datetime:
    """The instant a wall-clock time in `tz` names.

    Raises:
        InvalidArgument: the clocks skip that time (DST gap) or show it twice (DST overlap); the message
            names the field and what to send instead.
    """
    first, second = naive.replace(tzinfo=tz, fold=0), naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() == second.utcoffset():
        return first.astimezone(UTC)
    shown = naive.isoformat(timespec="minutes")
    if _wall(first, tz) != naive:
        after = first.astimezone(UTC).astimezone(tz)
        raise invalid(
            f"{shown} does not exist in {tz.key}: the clocks spring forward over it (daylight saving time); "
            f"read at the earlier offset it is {after.isoformat(timespec='seconds')}, or pick another time",
            field,
        )
    raise invalid(
        f"{shown} happens twice in {tz.key} (daylight saving time ends); send it with its offset: "
        f"{first.isoformat(timespec='seconds')} (the first) or {second.isoformat(timespec='seconds')} (the second)",
        field,
    )


def lenient(naive: datetime, tz: ZoneInfo) -> datetime:
    """As `localize`, but a skipped time moves past the gap and a repeated one is its first occurrence:
    for boundaries the caller did not type (working hours, a series shifted to another day)."""
    return naive.replace(tzinfo=tz, fold=0).astimezone(UTC)


def _wall(moment: datetime, tz: ZoneInfo) -> datetime:
    return moment.astimezone(UTC).astimezone(tz).replace(tzinfo=None)


def parse(text: str, tz: ZoneInfo | None, field: str) -> When:
    """A caller's time: a date, or an aware datetime (a wall-clock time read in `tz`).

    Raises:
        InvalidArgument: not one of the three forms, not a real date, no zone for a wall-clock time,
            or a DST gap or overlap (see `localize`).
    """
    text = text.strip()
    try:
        if DATE_RE.fullmatch(text):
            return date.fromisoformat(text)
        if LOCAL_RE.fullmatch(text):
            if tz is None:
                raise invalid(f"{text} has no offset: give time_zone too", field)
            return localize(datetime.fromisoformat(text), tz, field)
        if INSTANT_RE.fullmatch(text):
            return datetime.fromisoformat(text.replace("z", "Z")).astimezone(UTC)
    except ValueError:
        raise invalid(f"{text!r} is not a real date or time", field) from None
    raise invalid(
        f"{text!r} is not YYYY-MM-DD, YYYY-MM-DDTHH:MM (local time) or RFC 3339 with an offset "
        "(2026-03-08T09:00:00-05:00)",
        field,
    )


def rfc3339(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def show_in(moment: datetime, tz: ZoneInfo) -> str:
    """An instant as RFC 3339 with the offset `tz` has at that moment."""
    return rfc3339(moment.astimezone(tz))


def event_times(
    start: str,
    end: str | None,
    duration_minutes: int | None,
    tz: ZoneInfo,
    *,
    start_field: str = "start",
    end_field: str = "end",
) -> tuple[dict[str, str], dict[str, str]]:
    """Google's `start` and `end` (EventDateTime) for what the caller gave.

    All day: `end` is the last day (inclusive; omitted: one day); Google gets the day after it.
    Timed: `end` or `duration_minutes`; both carry `tz`'s name so recurrences expand in it.

    Raises:
        InvalidArgument: mixed forms, an end not after the start, or neither end nor duration for a timed event.
    """
    began = parse(start, tz, start_field)
    if isinstance(began, datetime):
        if end is not None and duration_minutes is not None:
            raise invalid("give end or duration_minutes, not both", end_field)
        if end is None and duration_minutes is None:
            raise invalid("a timed event needs end or duration_minutes", end_field)
        if end is not None:
            finished = parse(end, tz, end_field)
            if not isinstance(finished, datetime):
                raise invalid("the start has a time, so the end needs one too (or use duration_minutes)", end_field)
        else:
            assert duration_minutes is not None
            finished = began + timedelta(minutes=duration_minutes)
        if finished <= began:
            raise invalid(f"{rfc3339(finished)} is not after the start {rfc3339(began)}", end_field)
        return timed(began, tz), timed(finished, tz)
    if duration_minutes is not None:
        raise invalid("an all-day event takes end as its last day, not duration_minutes", "duration_minutes")
    last = began
    if end is not None:
        given = parse(end, tz, end_field)
        if isinstance(given, datetime):
            raise invalid("an all-day event (start is a date) ends on a date: its last day, inclusive", end_field)
        last = given
    if last < began:
        raise invalid(f"the last day {last} is before the first day {began}", end_field)
    return all_day(began), all_day(last, last_day=True)


def timed(moment: datetime, tz: ZoneInfo) -> dict[str, str]:
    return {"dateTime": show_in(moment, tz), "timeZone": tz.key}


def all_day(day: date, *, last_day: bool = False) -> dict[str, str]:
    """Google's EventDateTime for a day; with `last_day`, the exclusive end after that last day."""
    return {"date": (day + timedelta(days=1) if last_day else day).isoformat()}


def read_when(raw: Mapping[str, Any] | None, fallback: ZoneInfo | None = None) -> When | None:
    """Google's EventDateTime (or a bare RFC 3339 string) as a date or an aware instant; None if absent."""
    if raw is None:
        return None
    if isinstance(raw, str):
        value: Any = raw
        named = None
    else:
        if isinstance(raw.get("date"), str):
            return date.fromisoformat(raw["date"])
        value, named = raw.get("dateTime"), raw.get("timeZone")
    if not isinstance(value, str):
        return None
    moment = datetime.fromisoformat(value.replace("z", "Z"))
    if moment.tzinfo is None:  # Google pairs a bare local time with timeZone
        return lenient(moment, _safe_zone(named) or fallback or ZoneInfo("UTC"))
    return moment.astimezone(UTC)


def _safe_zone(name: Any) -> ZoneInfo | None:
    if not isinstance(name, str):
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def show(raw: Mapping[str, Any] | None, tz: ZoneInfo, *, end: bool = False) -> str | None:
    """Google's EventDateTime for the caller: a day as it is (an end as the last day, inclusive), an instant
    with the offset of `tz`."""
    found = read_when(raw, tz)
    if found is None:
        return None
    if isinstance(found, datetime):
        return show_in(found, tz)
    return (found - timedelta(days=1) if end else found).isoformat()


def day_start(day: date, tz: ZoneInfo) -> datetime:
    """The first instant of `day` in `tz` (midnight, or the first time after a gap at midnight)."""
    return lenient(datetime.combine(day, time()), tz)


def span(when: When, tz: ZoneInfo) -> datetime:
    return day_start(when, tz) if not isinstance(when, datetime) else when


def time_range(
    time_min: str | None,
    time_max: str | None,
    tz: ZoneInfo,
    now: datetime,
    *,
    default_days: int = 7,
    max_days: int | None = None,
) -> tuple[datetime, datetime]:
    """The instants `[start, end)` a caller's range covers. A date for `time_max` includes that whole day.

    Defaults: from the start of today in `tz`, for `default_days`.

    Raises:
        InvalidArgument: a bound in a wrong form, an empty range, or one longer than `max_days`.
    """
    start = span(parse(time_min, tz, "time_min"), tz) if time_min else day_start(now.astimezone(tz).date(), tz)
    if time_max:
        given = parse(time_max, tz, "time_max")
        finish = given if isinstance(given, datetime) else day_start(given + timedelta(days=1), tz)
    else:
        finish = start + timedelta(days=default_days)
    if finish <= start:
        raise invalid(f"{rfc3339(finish)} is not after time_min {rfc3339(start)}", "time_max")
    if max_days is not None and finish - start > timedelta(days=max_days):
        raise invalid(f"the range is longer than {max_days} days; ask for a shorter one", "time_max")
    return start, finish


def until_before(original_start: Mapping[str, Any]) -> str:
    """RFC 5545 UNTIL that ends a series just before the occurrence that started at `original_start`:
    a date for an all-day series, else the UTC second before (UNTIL is inclusive)."""
    found = read_when(original_start)
    if found is None:
        raise invalid("the occurrence has no original start")
    if isinstance(found, datetime):
        return (found.astimezone(UTC) - timedelta(seconds=1)).strftime("%Y%m%dT%H%M%SZ")
    return (found - timedelta(days=1)).strftime("%Y%m%d")


# --- free time ----------------------------------------------------------------------------------------------

Interval = tuple[datetime, datetime]


def clock(text: str, field: str) -> time | None:
    """`HH:MM` as a time of day; `24:00` is None (the end of the day).

    Raises:
        InvalidArgument: not HH:MM.
    """
    if not CLOCK_RE.fullmatch(text):
        raise invalid(f"{text!r} is not HH:MM (00:00-24:00)", field)
    if text == "24:00":
        return None
    return time(int(text[:2]), int(text[3:]))


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Overlapping or touching intervals joined, in order."""
    merged: list[Interval] = []
    for begin, finish in sorted(intervals):
        if merged and begin <= merged[-1][1]:
            if finish > merged[-1][1]:
                merged[-1] = (merged[-1][0], finish)
        else:
            merged.append((begin, finish))
    return merged


def working_windows(
    start: datetime,
    end: datetime,
    tz: ZoneInfo,
    day_from: time,
    day_to: time | None,
    weekdays: Sequence[int],
) -> list[Interval]:
    """The working hours of each local day in `[start, end)`, as instants (each day's own offset, so a DST
    change moves them correctly), cut to the range. `weekdays`: 0 = Monday."""
    windows: list[Interval] = []
    day = start.astimezone(tz).date()
    last = end.astimezone(tz).date()
    while day <= last:
        if day.weekday() in weekdays:
            opens = lenient(datetime.combine(day, day_from), tz)
            closes = (
                day_start(day + timedelta(days=1), tz) if day_to is None else lenient(datetime.combine(day, day_to), tz)
            )
            begin, finish = max(opens, start), min(closes, end)
            if begin < finish:
                windows.append((begin, finish))
        day += timedelta(days=1)
    return windows


def free_slots(windows: Iterable[Interval], busy: Iterable[Interval], min_minutes: int) -> list[Interval]:
    """The parts of `windows` no busy interval covers, each at least `min_minutes` long."""
    blocked = merge(busy)
    shortest = timedelta(minutes=min_minutes)
    slots: list[Interval] = []
    for begin, finish in windows:
        cursor = begin
        for busy_from, busy_to in blocked:
            if busy_to <= cursor or busy_from >= finish:
                continue
            if busy_from - cursor >= shortest:
                slots.append((cursor, busy_from))
            cursor = max(cursor, busy_to)
            if cursor >= finish:
                break
        if finish - cursor >= shortest:
            slots.append((cursor, finish))
    return slots
