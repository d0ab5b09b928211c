"""Recurring series as RFC 5545 text: the rules Google keeps in a master event's `recurrence`, cut before an
occurrence or continued after it, and a series' first occurrence moved as one of its occurrences moves."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from ._times import invalid, lenient, read_when, show_in

LINE_PATTERN = r"^(RRULE|EXRULE|RDATE|EXDATE)[:;][A-Za-z0-9=;:,/+_.\-]{1,500}$"
_DAY_RULES = ("BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO")
_FREQ = re.compile(r"(^|;)FREQ=(SECONDLY|MINUTELY|HOURLY|DAILY|WEEKLY|MONTHLY|YEARLY)(;|$)")


def check(lines: Sequence[str], field: str = "recurrence") -> list[str]:
    """Recurrence lines as Google takes them (`RRULE:FREQ=WEEKLY;BYDAY=TU`, `EXDATE;TZID=...:...`).

    Raises:
        InvalidArgument: an RRULE without FREQ, COUNT together with UNTIL, or no RRULE/RDATE at all.
    """
    out = []
    for line in lines:
        head, _, body = line.partition(":")
        if head.upper() in ("RRULE", "EXRULE"):
            body = body.upper()
            if not _FREQ.search(body):
                raise invalid(f"{line!r} has no FREQ=DAILY|WEEKLY|MONTHLY|YEARLY...", field)
            keys = {part.split("=", 1)[0] for part in body.split(";")}
            if {"COUNT", "UNTIL"} <= keys:
                raise invalid(f"{line!r} has both COUNT and UNTIL; give one", field)
            line = f"{head.upper()}:{body}"
        out.append(line)
    if out and not any(line.startswith(("RRULE", "RDATE")) for line in out):
        raise invalid("a series needs an RRULE (or RDATE) line, e.g. RRULE:FREQ=WEEKLY;BYDAY=TU", field)
    return out


def _parts(line: str) -> list[tuple[str, str]]:
    body = line.split(":", 1)[1]
    return [(key.upper(), value) for key, _, value in (part.partition("=") for part in body.split(";") if part)]


def _join(parts: Sequence[tuple[str, str]]) -> str:
    return "RRULE:" + ";".join(f"{key}={value}" for key, value in parts)


def is_rule(line: str) -> bool:
    return line.upper().startswith("RRULE:")


def cut(lines: Sequence[str], until: str) -> list[str]:
    """The series ending with `until` (inclusive): each RRULE loses COUNT and any later UNTIL."""
    out = []
    for line in lines:
        if is_rule(line):
            parts = [(k, v) for k, v in _parts(line) if k not in ("COUNT", "UNTIL")]
            line = _join([*parts, ("UNTIL", until)])
        out.append(line)
    return out


def counted(lines: Sequence[str]) -> bool:
    return any(key == "COUNT" for line in lines if is_rule(line) for key, _ in _parts(line))


def continued(lines: Sequence[str], done: int) -> list[str]:
    """The rest of a series after its first `done` occurrences: a COUNT lowered by `done` (UNTIL stays).

    Raises:
        InvalidArgument: a COUNT that `done` uses up (nothing would remain).
    """
    out = []
    for line in lines:
        if is_rule(line):
            parts = []
            for key, value in _parts(line):
                if key == "COUNT":
                    left = int(value) - done
                    if left < 1:
                        raise invalid(f"the series has only {value} occurrences; none follows this one", "scope")
                    value = str(left)
                parts.append((key, value))
            line = _join(parts)
        out.append(line)
    return out


def day_bound(lines: Sequence[str]) -> bool:
    """Whether a rule names days (BYDAY=TU...): its occurrences cannot move to another day on their own."""
    return any(key in _DAY_RULES for line in lines if is_rule(line) for key, _ in _parts(line))


def local_day(when: date, tz: ZoneInfo) -> date:
    return when.astimezone(tz).date() if isinstance(when, datetime) else when


def shift_series(
    master: Mapping[str, Any],
    original_start: Mapping[str, Any],
    new_start: Mapping[str, str],
    new_end: Mapping[str, str],
    tz: ZoneInfo,
    *,
    rules_given: bool,
) -> tuple[dict[str, str], dict[str, str]]:
    """The master's new start and end when one occurrence (that began at `original_start`) moves to
    `new_start`/`new_end` and every occurrence moves with it: the same number of days and the new time of day
    in `tz`, so "every Tuesday 09:00" stays 09:00 local on both sides of a DST change.

    Raises:
        InvalidArgument: the move changes the day of a series whose rule names days, and no new
            `recurrence` was given.
    """
    old = read_when(original_start)
    first = read_when(master.get("start"))
    began, ended = read_when(new_start), read_when(new_end)
    if old is None or first is None or began is None or ended is None:
        raise invalid("the series has no start to move", "start")
    days = local_day(began, tz) - local_day(old, tz)
    if days and day_bound(master.get("recurrence") or []) and not rules_given:
        raise invalid(
            "moving every occurrence to another day changes the series' rule: pass recurrence with the new "
            "days too (e.g. RRULE:FREQ=WEEKLY;BYDAY=WE)",
            "start",
        )
    day = local_day(first, tz) + days
    if isinstance(began, datetime):
        assert isinstance(ended, datetime)
        start = lenient(datetime.combine(day, began.astimezone(tz).time()), tz)
        finish = start + (ended - began)
        return (
            {"dateTime": show_in(start, tz), "timeZone": tz.key},
            {"dateTime": show_in(finish, tz), "timeZone": tz.key},
        )
    assert not isinstance(ended, datetime)
    return {"date": day.isoformat()}, {"date": (day + (ended - began)).isoformat()}


def same_start(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    first, second = read_when(a), read_when(b)
    return first is not None and first == second and type(first) is type(second)
