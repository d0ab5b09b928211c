"""Recurrence as a caller says it (every 2 weeks on Monday) and as Graph keeps it (a patternedRecurrence)."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcpist.modules import InvalidArgument

from ._time import SERVICE

Day = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
Week = Literal["first", "second", "third", "fourth", "last"]
DAYS: tuple[Day, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNIT = {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year"}


class RecurrenceIn(BaseModel):
    """How a task repeats; To Do creates the next occurrence when one is completed."""

    model_config = ConfigDict(extra="forbid")

    frequency: Literal["daily", "weekly", "monthly", "yearly"]
    interval: int = Field(1, ge=1, le=99, description="every N days/weeks/...")
    days_of_week: list[Day] | None = Field(None, min_length=1, max_length=7, description="default: the due day's")
    week_of_month: Week | None = Field(None, description="with days_of_week: e.g. the second tuesday")
    day_of_month: int | None = Field(None, ge=1, le=31, description="default: the due day's")
    month: int | None = Field(None, ge=1, le=12, description="yearly; default: the due day's")
    until: date | None = None
    count: int | None = Field(None, ge=1, le=999, description="occurrences in all")


class Recurrence(BaseModel):
    frequency: str
    interval: int = 1
    days_of_week: list[str] = []
    week_of_month: str | None = None
    day_of_month: int | None = None
    month: int | None = None
    until: str | None = None
    count: int | None = None
    summary: str = Field(description="e.g. every 2 weeks on monday, thursday")


def _invalid(message: str) -> InvalidArgument:
    return InvalidArgument(f"{SERVICE}: `recurrence`: {message}", {"service": SERVICE, "field": "recurrence"})


def recurrence_to_graph(rule: RecurrenceIn, due: date | None) -> dict[str, Any]:
    """Graph's patternedRecurrence for `rule`, starting on the due day.

    Raises:
        InvalidArgument: no due date (To Do repeats from one), or options that do not go together.
    """
    if due is None:
        raise _invalid("a repeating task needs a due date; give due_date")
    days = list(dict.fromkeys(rule.days_of_week or []))
    if rule.until is not None and rule.count is not None:
        raise _invalid("give `until` or `count`, not both")
    if rule.until is not None and rule.until < due:
        raise _invalid(f"`until` {rule.until} is before the due date {due}")
    if rule.frequency in ("daily", "weekly") and (rule.week_of_month or rule.day_of_month or rule.month):
        raise _invalid(f"{rule.frequency} takes no week_of_month, day_of_month or month")
    if rule.frequency == "monthly" and rule.month:
        raise _invalid("monthly takes no month; use yearly")
    if rule.week_of_month and rule.day_of_month:
        raise _invalid("give week_of_month (with days_of_week) or day_of_month, not both")
    if rule.frequency == "daily" and days:
        raise _invalid("daily takes no days_of_week; use weekly")
    if rule.frequency in ("monthly", "yearly") and days and not rule.week_of_month:
        raise _invalid("days_of_week in a monthly or yearly rule needs week_of_month (e.g. first)")
    pattern: dict[str, Any] = {"interval": rule.interval}
    if rule.frequency == "daily":
        pattern["type"] = "daily"
    elif rule.frequency == "weekly":
        pattern |= {"type": "weekly", "daysOfWeek": days or [DAYS[due.weekday()]], "firstDayOfWeek": "sunday"}
    elif rule.week_of_month:
        pattern |= {
            "type": "relativeMonthly" if rule.frequency == "monthly" else "relativeYearly",
            "daysOfWeek": days or [DAYS[due.weekday()]],
            "index": rule.week_of_month,
        }
    else:
        pattern |= {
            "type": "absoluteMonthly" if rule.frequency == "monthly" else "absoluteYearly",
            "dayOfMonth": rule.day_of_month or due.day,
        }
    if rule.frequency == "yearly":
        pattern["month"] = rule.month or due.month
    span: dict[str, Any] = {"type": "noEnd", "startDate": due.isoformat()}
    if rule.until is not None:
        span |= {"type": "endDate", "endDate": rule.until.isoformat()}
    elif rule.count is not None:
        span |= {"type": "numbered", "numberOfOccurrences": rule.count}
    return {"pattern": pattern, "range": span}


def recurrence_from_graph(raw: Any) -> Recurrence | None:
    """A patternedRecurrence read back, with a one-line summary; None when the task does not repeat."""
    if not isinstance(raw, dict) or not isinstance(raw.get("pattern"), dict):
        return None
    pattern: dict[str, Any] = raw["pattern"]
    span: dict[str, Any] = raw["range"] if isinstance(raw.get("range"), dict) else {}
    kind = str(pattern.get("type") or "")
    frequency = next((f for f in ("daily", "weekly", "monthly", "yearly") if f in kind.lower()), kind or "unknown")
    interval = pattern.get("interval") if isinstance(pattern.get("interval"), int) else 1
    days = [d for d in pattern.get("daysOfWeek") or [] if isinstance(d, str)]
    relative = kind.startswith("relative")
    found = Recurrence(
        frequency=frequency,
        interval=interval,
        days_of_week=days if frequency == "weekly" or relative else [],
        week_of_month=pattern.get("index") if relative else None,
        day_of_month=pattern.get("dayOfMonth") if kind.startswith("absolute") else None,
        month=pattern.get("month") if frequency == "yearly" else None,
        until=span.get("endDate") if span.get("type") == "endDate" else None,
        count=span.get("numberOfOccurrences") if span.get("type") == "numbered" else None,
        summary="",
    )
    found.summary = _summary(found)
    return found


def _summary(rule: Recurrence) -> str:
    unit = _UNIT.get(rule.frequency, rule.frequency)
    text = f"every {unit}" if rule.interval == 1 else f"every {rule.interval} {unit}s"
    if rule.week_of_month and rule.days_of_week:
        text += f" on the {rule.week_of_month} {'/'.join(rule.days_of_week)}"
    elif rule.days_of_week:
        text += f" on {', '.join(rule.days_of_week)}"
    elif rule.day_of_month:
        text += f" on day {rule.day_of_month}"
    if rule.month and rule.frequency == "yearly":
        text += f" of month {rule.month}"
    if rule.until:
        text += f" until {rule.until}"
    elif rule.count:
        text += f", {rule.count} times"
    return text
