"""Recurrence: what the caller says, what Graph gets (patternedRecurrence), and what comes back."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from mstodo_harness import Harness
from mstodo_world import World

from mcpist.modules import InvalidArgument
from mcpist.modules.microsoft_todo._recurrence import RecurrenceIn, recurrence_from_graph, recurrence_to_graph
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

SUNDAY = date(2026, 3, 8)


@pytest.mark.parametrize(
    ("rule", "pattern", "span", "summary"),
    [
        ({"frequency": "daily", "interval": 3}, {"type": "daily", "interval": 3}, {"type": "noEnd"}, "every 3 days"),
        (
            {"frequency": "weekly"},
            {"type": "weekly", "interval": 1, "daysOfWeek": ["sunday"], "firstDayOfWeek": "sunday"},
            {"type": "noEnd"},
            "every week on sunday",
        ),
        (
            {"frequency": "weekly", "days_of_week": ["monday", "thursday", "monday"], "until": "2026-06-30"},
            {"type": "weekly", "interval": 1, "daysOfWeek": ["monday", "thursday"], "firstDayOfWeek": "sunday"},
            {"type": "endDate", "endDate": "2026-06-30"},
            "every week on monday, thursday until 2026-06-30",
        ),
        (
            {"frequency": "monthly", "interval": 2},
            {"type": "absoluteMonthly", "interval": 2, "dayOfMonth": 8},
            {"type": "noEnd"},
            "every 2 months on day 8",
        ),
        (
            {"frequency": "monthly", "week_of_month": "second", "days_of_week": ["tuesday"], "count": 6},
            {"type": "relativeMonthly", "interval": 1, "daysOfWeek": ["tuesday"], "index": "second"},
            {"type": "numbered", "numberOfOccurrences": 6},
            "every month on the second tuesday, 6 times",
        ),
        (
            {"frequency": "yearly"},
            {"type": "absoluteYearly", "interval": 1, "dayOfMonth": 8, "month": 3},
            {"type": "noEnd"},
            "every year on day 8 of month 3",
        ),
        (
            {"frequency": "yearly", "week_of_month": "last", "days_of_week": ["friday"], "month": 11},
            {"type": "relativeYearly", "interval": 1, "daysOfWeek": ["friday"], "index": "last", "month": 11},
            {"type": "noEnd"},
            "every year on the last friday of month 11",
        ),
    ],
)
def test_rules_to_graph_and_back(
    rule: dict[str, Any], pattern: dict[str, Any], span: dict[str, Any], summary: str
) -> None:
    graph = recurrence_to_graph(RecurrenceIn.model_validate(rule), SUNDAY)
    assert graph == {"pattern": pattern, "range": {**span, "startDate": "2026-03-08"}}
    back = recurrence_from_graph(graph)
    assert back is not None and back.summary == summary and back.frequency == rule["frequency"]


@pytest.mark.parametrize(
    ("rule", "due", "problem"),
    [
        ({"frequency": "daily"}, None, "a repeating task needs a due date"),
        ({"frequency": "daily", "until": "2026-03-01"}, SUNDAY, "`until` 2026-03-01 is before the due date"),
        ({"frequency": "daily", "until": "2026-04-01", "count": 3}, SUNDAY, "give `until` or `count`, not both"),
        ({"frequency": "daily", "days_of_week": ["monday"]}, SUNDAY, "daily takes no days_of_week"),
        ({"frequency": "weekly", "day_of_month": 3}, SUNDAY, "weekly takes no week_of_month, day_of_month or month"),
        ({"frequency": "monthly", "month": 4}, SUNDAY, "monthly takes no month"),
        (
            {"frequency": "monthly", "days_of_week": ["monday"]},
            SUNDAY,
            "days_of_week in a monthly or yearly rule needs week_of_month",
        ),
        (
            {"frequency": "monthly", "week_of_month": "first", "day_of_month": 2},
            SUNDAY,
            "give week_of_month (with days_of_week) or day_of_month, not both",
        ),
    ],
)
def test_rules_that_do_not_go_together_are_refused(rule: dict[str, Any], due: date | None, problem: str) -> None:
    with pytest.raises(InvalidArgument, match="`recurrence`: " + re.escape(problem)) as caught:
        recurrence_to_graph(RecurrenceIn.model_validate(rule), due)
    assert caught.value.data["field"] == "recurrence"


def test_graph_shapes_the_module_did_not_write() -> None:
    assert recurrence_from_graph(None) is None and recurrence_from_graph({"pattern": None}) is None
    odd = recurrence_from_graph({"pattern": {"type": "weekly", "interval": 1, "daysOfWeek": ["monday"]}})
    assert odd is not None and odd.summary == "every week on monday" and odd.until is None


@covers("create_task")
async def test_a_recurrence_without_a_due_date_sends_nothing(todo: Harness, world: World) -> None:
    with pytest.raises(InvalidArgument, match="a repeating task needs a due date; give due_date"):
        await todo.call("create_task", list_id=next(iter(world.lists)), title="x", recurrence={"frequency": "weekly"})
    with pytest.raises(InvalidArgument, match=r"recurrence\.interval"):
        await todo.call(
            "create_task",
            list_id=next(iter(world.lists)),
            title="x",
            due_date="2026-03-08",
            recurrence={"frequency": "weekly", "interval": 0},
        )
    assert todo.fake.requests == []


@covers("create_task", "list_tasks")
async def test_a_repeating_task_reads_back_in_lists(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    await todo.call(
        "create_task",
        list_id=tasks,
        title="Bins",
        due_date="2026-03-10",
        recurrence={"frequency": "weekly", "days_of_week": ["tuesday"]},
        time_zone="Asia/Tokyo",
    )
    page = await todo.call("list_tasks", list_id=tasks, time_zone="Asia/Tokyo")
    (task,) = page["items"]
    assert task["due_date"] == "2026-03-10"
    assert task["recurrence"] == {
        "frequency": "weekly",
        "interval": 1,
        "days_of_week": ["tuesday"],
        "summary": "every week on tuesday",
    }
