"""Graph's `dateTimeTimeZone` values in and out: due DAYS that never slip a day, reminders that are instants.

To Do keeps a due date as midnight of the zone it was set in, stored as a UTC instant: 2026-03-08 set in Tokyo is
2026-03-07T15:00 UTC, and reading the date part of that gives the day before for every zone east of UTC, the bug
most To Do clients have. Every request here carries `Prefer: outlook.timezone="UTC"`, so each value comes back as
an unambiguous instant (a wall time in a DST zone repeats an hour each autumn, and Graph's answer would not say
which); zoneinfo then does what Graph would do for a preferred zone. A due value in UTC is placed in the caller's
zone and rounded to the nearest midnight: the day set, for any setter within twelve hours of the caller. A due
value Graph names another zone for is that zone's own wall time, read without conversion. A reminder is written
in UTC after zoneinfo has placed the caller's wall time (refusing a time a DST change skips) and read back in the
caller's zone.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Annotated, Any

from pydantic import Field

from mcpist.modules import InvalidArgument

from ._zones import WINDOWS_TO_IANA

SERVICE = "microsoft_todo"

TimeZoneName = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_+\-/. ()]*$",
        description="IANA or Windows zone for reminders and due days; default: the time_zone setting",
    ),
]

_GRAPH_TIME = re.compile(
    r"^(?P<day>\d{4}-\d{2}-\d{2})T(?P<h>\d{2}):(?P<m>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d+))?)?"
    r"(?P<offset>Z|[+-]\d{2}:\d{2})?$"
)
_IANA_TO_WINDOWS = {iana: windows for windows, iana in WINDOWS_TO_IANA.items() if not windows.startswith("tzone:")}
_IANA_TO_WINDOWS["Etc/UTC"] = "UTC"


@dataclass(frozen=True)
class Zone:
    """A zone the caller named: `key` is its IANA name, `graph` what Graph is sent (its Windows name if any)."""

    key: str
    info: tzinfo

    @property
    def graph(self) -> str:
        return _IANA_TO_WINDOWS.get(self.key, self.key)


@functools.cache
def _lowercase_keys() -> dict[str, str]:
    return {key.lower(): key for key in zoneinfo.available_timezones()}


@functools.lru_cache(maxsize=256)
def lookup(name: str) -> Zone | None:
    """The zone an IANA or Windows name means (IANA names case-insensitively), or None."""
    name = name.strip()
    key = WINDOWS_TO_IANA.get(name)
    if key is None:
        key = next((iana for windows, iana in WINDOWS_TO_IANA.items() if windows.lower() == name.lower()), None)
    if key is None:
        key = _lowercase_keys().get(name.lower())
    if key is None:
        return None
    if key == "UTC":
        key = "Etc/UTC"
    try:
        return Zone(key, zoneinfo.ZoneInfo(key))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


def caller_zone(name: str | None, default: str, field: str = "time_zone") -> Zone:
    """The zone a tool works in: the one named, else the module's setting.

    Raises:
        InvalidArgument: the name is neither an IANA nor a Windows zone (data `field`).
    """
    zone = lookup(name or default)
    if zone is None:
        raise InvalidArgument(
            f"{SERVICE}: `{field}` {name or default!r} is not a time zone; use an IANA name such as "
            "Europe/Berlin or a Windows one such as W. Europe Standard Time",
            {"service": SERVICE, "field": field},
        )
    return zone


PREFER_UTC = {"Prefer": 'outlook.timezone="UTC"'}
"""Sent with every task request: Graph then answers each dateTimeTimeZone in UTC, an instant with no repeated hour."""


def due_to_graph(day: date, zone: Zone) -> dict[str, str]:
    """A due day as To Do keeps it: midnight of that day in the caller's zone (never converted to UTC here)."""
    return {"dateTime": f"{day.isoformat()}T00:00:00", "timeZone": zone.graph}


def _parse(raw: Any) -> tuple[datetime, str | None] | None:
    """The wall time and zone name of a dateTimeTimeZone (aware when the text carries an offset), or None."""
    if not isinstance(raw, dict) or not isinstance(raw.get("dateTime"), str):
        return None
    found = _GRAPH_TIME.match(raw["dateTime"].strip())
    if found is None:
        return None
    micro = int((found["f"] or "0")[:6].ljust(6, "0"))
    try:
        wall = datetime.fromisoformat(f"{found['day']}T{found['h']}:{found['m']}:{found['s'] or '00'}").replace(
            microsecond=micro
        )
    except ValueError:
        return None
    offset = found["offset"]
    if offset:
        wall = wall.replace(tzinfo=UTC if offset == "Z" else datetime.fromisoformat(f"2000-01-01T00:00{offset}").tzinfo)
    zone = raw.get("timeZone")
    return wall, zone if isinstance(zone, str) and zone.strip() else None


def _always_utc(zone: Zone) -> bool:
    return all(zone.info.utcoffset(datetime(2026, month, 1)) == timedelta(0) for month in (1, 7))


def due_from_graph(raw: Any, zone: Zone) -> str | None:
    """The due day (YYYY-MM-DD) of Graph's dueDateTime, for a caller in `zone`.

    A UTC value is placed in `zone`; a value in another zone is that zone's wall time. Either way the nearest
    midnight, not the date part, names the day: midnight of a zone up to 12 hours away is still that day.
    """
    parsed = _parse(raw)
    if parsed is None:
        return None
    wall, name = parsed
    if wall.tzinfo is not None:
        wall = wall.astimezone(zone.info)
    else:
        source = lookup(name or "UTC")
        if source is not None and _always_utc(source):
            wall = wall.replace(tzinfo=UTC).astimezone(zone.info)
    return (wall.replace(tzinfo=None) + timedelta(hours=12)).date().isoformat()


def reminder_to_graph(when: datetime, zone: Zone, field: str = "reminder") -> tuple[dict[str, str], list[str]]:
    """A reminder instant for Graph, in UTC, and notes for the caller.

    A time without an offset is a wall time in `zone`; one that happens twice (clocks going back) is the first.
    UTC goes to Graph because a wall time in a zone is ambiguous for that repeated hour, an instant is not.

    Raises:
        InvalidArgument: the wall time does not exist in `zone` (clocks going forward skip it).
    """
    notes: list[str] = []
    if when.tzinfo is None:
        local = when.replace(tzinfo=zone.info, fold=0)
        back = local.astimezone(UTC).astimezone(zone.info).replace(tzinfo=None)
        if back != when:
            raise InvalidArgument(
                f"{SERVICE}: `{field}` {when:%Y-%m-%dT%H:%M} does not exist in {zone.key}: the clocks skip it "
                "(daylight saving time begins); pick another time or give an offset",
                {"service": SERVICE, "field": field},
            )
        later = when.replace(tzinfo=zone.info, fold=1)
        if later.utcoffset() != local.utcoffset():
            notes.append(
                f"{field} {when:%Y-%m-%dT%H:%M} happens twice in {zone.key} (clocks go back); "
                f"the first was taken ({local.isoformat(timespec='minutes')}); give an offset to choose"
            )
        instant = local
    else:
        instant = when
    utc = instant.astimezone(UTC).replace(microsecond=0)
    return {"dateTime": utc.strftime("%Y-%m-%dT%H:%M:%S"), "timeZone": "UTC"}, notes


def instant_from_graph(raw: Any, zone: Zone, what: str = "reminder") -> tuple[str | None, list[str]]:
    """A dateTimeTimeZone as an ISO 8601 instant with its offset in the caller's `zone`, and notes.

    Graph's zone may be IANA or Windows ("Tokyo Standard Time"); an unknown one is read as UTC and said so.
    """
    parsed = _parse(raw)
    if parsed is None:
        return None, []
    wall, name = parsed
    notes: list[str] = []
    if wall.tzinfo is None:
        source = lookup(name or "UTC")
        if source is None:
            notes.append(f"Graph gave the {what} in an unknown time zone {(name or '')[:64]!r}; it was read as UTC")
            source = Zone("Etc/UTC", UTC)
        first = wall.replace(tzinfo=source.info, fold=0)
        if first.utcoffset() != wall.replace(tzinfo=source.info, fold=1).utcoffset():
            notes.append(
                f"Graph gave the {what} as {wall:%Y-%m-%dT%H:%M} in {source.key}, which happens twice; "
                "read as the first"
            )
        wall = first
    return wall.astimezone(zone.info).replace(microsecond=0).isoformat(), notes


def due_window(start: date | None, end: date | None) -> tuple[str | None, str | None]:
    """Bounds for Graph's `dueDateTime/dateTime` filter around the days [start, end], widened by a day each way.

    Graph compares the stored value, midnight of the setter's zone in UTC: 2026-03-08 set in Tokyo is stored
    2026-03-07T15:00. The exact days are then checked on the values read back.
    """
    low = f"{(start - timedelta(days=1)).isoformat()}T00:00:00" if start else None
    high = f"{(end + timedelta(days=2)).isoformat()}T00:00:00" if end else None
    return low, high
