"""Time zones both ways: due dates never slip a day, reminders cross DST changes (America/New_York on 2026-03-08,
Europe/Berlin on 2026-10-25), and Windows zone names in Graph's answers are read through the shipped table."""

from __future__ import annotations

import zoneinfo
from datetime import date, datetime
from typing import Any

import pytest
from mstodo_harness import Harness
from mstodo_world import Stored, World
from pydantic import ValidationError

from mcpist.modules import InvalidArgument
from mcpist.modules.microsoft_todo import MicrosoftTodoSettings
from mcpist.modules.microsoft_todo._time import (
    caller_zone,
    due_from_graph,
    due_to_graph,
    instant_from_graph,
    lookup,
    reminder_to_graph,
)
from mcpist.modules.microsoft_todo._zones import WINDOWS_TO_IANA
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

NEW_YORK = caller_zone("America/New_York", "UTC")
BERLIN = caller_zone("Europe/Berlin", "UTC")


def dtz(when: str, zone: str) -> dict[str, str]:
    return {"dateTime": when, "timeZone": zone}


# --- the functions ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("iana", sorted(set(WINDOWS_TO_IANA.values())))
def test_every_zone_in_the_windows_table_exists(iana: str) -> None:
    zoneinfo.ZoneInfo(iana)


def test_zone_names_iana_windows_any_case() -> None:
    assert lookup("Tokyo Standard Time") == lookup("Asia/Tokyo") == lookup("asia/tokyo")
    assert lookup("tokyo standard time") is not None and lookup("Tokyo Standard Time").key == "Asia/Tokyo"  # type: ignore[union-attr]
    assert lookup("UTC").key == "Etc/UTC" and lookup("UTC").graph == "UTC"  # type: ignore[union-attr]
    assert NEW_YORK.graph == "Eastern Standard Time" and BERLIN.graph == "W. Europe Standard Time"
    assert lookup("Europe/Amsterdam").graph == "Europe/Amsterdam"  # type: ignore[union-attr]  # no 001 Windows name
    for bad in ("Mars Standard Time", "../../etc/passwd", "Europe/Nowhere", ""):
        assert lookup(bad) is None, bad
    with pytest.raises(InvalidArgument, match="`time_zone` 'Mars' is not a time zone") as caught:
        caller_zone("Mars", "UTC")
    assert caught.value.data["field"] == "time_zone"


def test_a_due_day_goes_to_graph_as_midnight_in_the_callers_zone() -> None:
    assert due_to_graph(date(2026, 3, 8), NEW_YORK) == dtz("2026-03-08T00:00:00", "Eastern Standard Time")
    assert due_to_graph(date(2026, 10, 25), BERLIN) == dtz("2026-10-25T00:00:00", "W. Europe Standard Time")


@pytest.mark.parametrize(
    ("raw", "reader", "day"),
    [
        # Graph's UTC storage of midnight in the setter's zone, placed in the reader's zone
        (dtz("2026-03-07T15:00:00.0000000", "UTC"), "Asia/Tokyo", "2026-03-08"),  # set in Tokyo
        (dtz("2026-03-07T15:00:00.0000000", "UTC"), "Europe/Berlin", "2026-03-08"),
        (dtz("2026-03-08T05:00:00.0000000", "UTC"), "America/New_York", "2026-03-08"),  # EST, the DST day
        (dtz("2026-03-08T05:00:00.0000000", "UTC"), "Europe/Berlin", "2026-03-08"),
        (dtz("2026-03-08T08:00:00.0000000", "UTC"), "America/Los_Angeles", "2026-03-08"),
        (dtz("2026-03-07T23:00:00.0000000", "UTC"), "Europe/Berlin", "2026-03-08"),  # CET
        (dtz("2026-10-24T22:00:00.0000000", "UTC"), "Europe/Berlin", "2026-10-25"),  # CEST, clocks go back
        (dtz("2026-10-24T22:00:00.0000000", "UTC"), "America/New_York", "2026-10-25"),
        (dtz("2026-03-07T11:00:00.0000000", "UTC"), "Pacific/Auckland", "2026-03-08"),  # NZDT, UTC+13
        (dtz("2026-03-08T00:00:00Z", "whatever"), "Asia/Tokyo", "2026-03-08"),
        # a zone Graph names: that zone's own wall time, never converted through UTC
        (dtz("2026-03-08T00:00:00.0000000", "Tokyo Standard Time"), "America/New_York", "2026-03-08"),
        (dtz("2026-03-08T00:00:00.0000000", "America/New_York"), "Asia/Tokyo", "2026-03-08"),
        (dtz("2026-10-25T00:00:00", "Mars Standard Time"), "Europe/Berlin", "2026-10-25"),
    ],
)
def test_a_due_day_comes_back_as_set_never_the_day_before(raw: dict[str, str], reader: str, day: str) -> None:
    assert due_from_graph(raw, caller_zone(reader, "UTC")) == day


def test_nothing_or_garbage_is_no_due_day() -> None:
    assert due_from_graph(None, BERLIN) is None
    assert due_from_graph({"dateTime": "soon", "timeZone": "UTC"}, BERLIN) is None
    assert due_from_graph({"timeZone": "UTC"}, BERLIN) is None


@pytest.mark.parametrize(
    ("wall", "zone", "utc"),
    [
        (datetime(2026, 3, 8, 1, 30), NEW_YORK, "2026-03-08T06:30:00"),  # EST, before the change
        (datetime(2026, 3, 8, 9, 0), NEW_YORK, "2026-03-08T13:00:00"),  # EDT, after
        (datetime(2026, 3, 7, 9, 0), NEW_YORK, "2026-03-07T14:00:00"),
        (datetime(2026, 10, 24, 9, 0), BERLIN, "2026-10-24T07:00:00"),  # CEST
        (datetime(2026, 10, 25, 3, 30), BERLIN, "2026-10-25T02:30:00"),  # CET, after the change
        (datetime(2026, 10, 26, 9, 0), BERLIN, "2026-10-26T08:00:00"),
        (datetime.fromisoformat("2026-10-25T02:30:00+01:00"), BERLIN, "2026-10-25T01:30:00"),  # offset: exact
        (datetime.fromisoformat("2026-03-08T07:00:00Z"), NEW_YORK, "2026-03-08T07:00:00"),
    ],
)
def test_a_reminder_goes_to_graph_as_a_utc_instant(wall: datetime, zone: Any, utc: str) -> None:
    sent, notes = reminder_to_graph(wall, zone)
    assert sent == dtz(utc, "UTC") and notes == []


def test_a_reminder_in_the_hour_a_dst_start_skips_is_refused() -> None:
    with pytest.raises(InvalidArgument, match=r"2026-03-08T02:30 does not exist in America/New_York") as caught:
        reminder_to_graph(datetime(2026, 3, 8, 2, 30), NEW_YORK)
    assert caught.value.data["field"] == "reminder"


def test_a_reminder_in_the_hour_a_dst_end_repeats_is_the_first_and_says_so() -> None:
    sent, notes = reminder_to_graph(datetime(2026, 10, 25, 2, 30), BERLIN)
    assert sent == dtz("2026-10-25T00:30:00", "UTC")  # 02:30 CEST
    assert notes == [
        "reminder 2026-10-25T02:30 happens twice in Europe/Berlin (clocks go back); the first was taken "
        "(2026-10-25T02:30+02:00); give an offset to choose"
    ]


@pytest.mark.parametrize(
    ("raw", "zone", "instant"),
    [
        (dtz("2026-03-08T13:00:00.0000000", "UTC"), NEW_YORK, "2026-03-08T09:00:00-04:00"),
        (dtz("2026-03-08T06:30:00.0000000", "UTC"), NEW_YORK, "2026-03-08T01:30:00-05:00"),
        (dtz("2026-03-09T00:00:00.0000000", "Tokyo Standard Time"), BERLIN, "2026-03-08T16:00:00+01:00"),
        (dtz("2026-10-25T09:00:00.0000000", "W. Europe Standard Time"), NEW_YORK, "2026-10-25T04:00:00-04:00"),
        (dtz("2026-10-25T08:00:00.1234567", "Eastern Standard Time"), BERLIN, "2026-10-25T13:00:00+01:00"),
    ],
)
def test_an_instant_from_graph_is_given_in_the_callers_zone(raw: dict[str, str], zone: Any, instant: str) -> None:
    assert instant_from_graph(raw, zone) == (instant, [])


def test_an_unknown_zone_from_graph_is_read_as_utc_with_a_note() -> None:
    found, notes = instant_from_graph(dtz("2026-03-08T13:00:00", "Mars Standard Time"), NEW_YORK)
    assert found == "2026-03-08T09:00:00-04:00"
    assert notes == ["Graph gave the reminder in an unknown time zone 'Mars Standard Time'; it was read as UTC"]


def test_a_repeated_wall_time_from_graph_is_read_as_the_first_with_a_note() -> None:
    found, notes = instant_from_graph(dtz("2026-10-25T02:30:00.0000000", "W. Europe Standard Time"), BERLIN)
    assert found == "2026-10-25T02:30:00+02:00"
    assert notes == [
        "Graph gave the reminder as 2026-10-25T02:30 in Europe/Berlin, which happens twice; read as the first"
    ]


def test_the_default_zone_setting_is_checked() -> None:
    assert MicrosoftTodoSettings.model_validate({}).time_zone == "UTC"
    assert MicrosoftTodoSettings.model_validate({"time_zone": "Tokyo Standard Time"}).time_zone == "Tokyo Standard Time"
    with pytest.raises(ValidationError, match="not an IANA or Windows time zone"):
        MicrosoftTodoSettings.model_validate({"time_zone": "Mars/Olympus"})


# --- through the tools --------------------------------------------------------------------------------------

ZONES = ["Asia/Tokyo", "America/New_York", "Europe/Berlin", "America/Los_Angeles", "Pacific/Auckland", "UTC"]


@covers("create_task", "get_task")
@pytest.mark.parametrize("zone", [*ZONES, "Tokyo Standard Time"])
@pytest.mark.parametrize("day", ["2026-03-08", "2026-10-25", "2026-12-31"])
async def test_a_due_date_round_trips_unchanged_in_every_zone(todo: Harness, world: World, zone: str, day: str) -> None:
    tasks = next(iter(world.lists))
    created = await todo.call("create_task", list_id=tasks, title="Pay rent", due_date=day, time_zone=zone)
    sent = todo.sent("POST /me/todo/lists/{todoTaskList-id}/tasks")[0]
    expected_zone = lookup(zone).graph  # type: ignore[union-attr]
    assert sent.json["dueDateTime"] == dtz(f"{day}T00:00:00", expected_zone)
    assert sent.headers["prefer"] == 'outlook.timezone="UTC"'
    assert created["due_date"] == day
    read = await todo.call("get_task", list_id=tasks, task_id=created["id"], time_zone=zone)
    assert read["due_date"] == day


@covers("create_task", "get_task")
@pytest.mark.parametrize(
    ("setter", "reader"),
    [
        ("Asia/Tokyo", "Europe/Berlin"),
        ("Europe/Berlin", "Asia/Tokyo"),
        ("America/New_York", "America/Los_Angeles"),
        ("America/Los_Angeles", "Europe/Berlin"),
        ("Europe/Berlin", "America/New_York"),
        ("Pacific/Auckland", "Asia/Tokyo"),
        ("UTC", "Asia/Tokyo"),
        ("Pacific/Auckland", "Pacific/Auckland"),
        ("Pacific/Kiritimati", "Pacific/Kiritimati"),
    ],
)
async def test_a_due_date_read_in_another_zone_is_the_same_day(
    todo: Harness, world: World, setter: str, reader: str
) -> None:
    """Graph answers in UTC: midnight in Tokyo reads 15:00 the day before, yet the day is the one set, for a
    reader up to 12 hours away (the documented limit; callers pass their own zone)."""
    tasks = next(iter(world.lists))
    created = await todo.call("create_task", list_id=tasks, title="Call mum", due_date="2026-03-08", time_zone=setter)
    read = await todo.call("get_task", list_id=tasks, task_id=created["id"], time_zone=reader)
    assert (created["due_date"], read["due_date"]) == ("2026-03-08", "2026-03-08")


async def test_graph_answering_in_the_zone_a_due_date_was_written_in(todo: Harness, world: World) -> None:
    world.honor_prefer = False  # Graph ignores the Prefer header and echoes the zone of the write
    tasks = next(iter(world.lists))
    task_id = world.add_task(
        tasks, "Echo", dueDateTime=Stored(verbatim=dtz("2026-03-08T00:00:00.0000000", "Eastern Standard Time"))
    )
    for reader in ZONES:
        read = await todo.call("get_task", list_id=tasks, task_id=task_id, time_zone=reader)
        assert read["due_date"] == "2026-03-08", reader


@covers("create_task", "get_task")
async def test_a_reminder_round_trips_across_the_new_york_dst_start(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    created = await todo.call(
        "create_task",
        list_id=tasks,
        title="Standup",
        due_date="2026-03-08",
        reminder="2026-03-08T09:00:00",
        time_zone="America/New_York",
    )
    sent = todo.last.json
    assert sent["reminderDateTime"] == dtz("2026-03-08T13:00:00", "UTC") and sent["isReminderOn"] is True
    assert created["reminder"] == "2026-03-08T09:00:00-04:00" and created["time_zone"] == "America/New_York"
    task = world.task(tasks, created["id"])
    assert task is not None and task["_reminderDateTime"].instant.isoformat() == "2026-03-08T13:00:00+00:00"
    in_berlin = await todo.call("get_task", list_id=tasks, task_id=created["id"], time_zone="Europe/Berlin")
    assert in_berlin["reminder"] == "2026-03-08T14:00:00+01:00" and in_berlin["due_date"] == "2026-03-08"


@covers("create_task")
async def test_a_reminder_in_the_skipped_hour_is_refused_before_anything_is_sent(todo: Harness, world: World) -> None:
    with pytest.raises(InvalidArgument, match="does not exist in America/New_York"):
        await todo.call(
            "create_task",
            list_id=next(iter(world.lists)),
            title="x",
            reminder="2026-03-08T02:30:00",
            time_zone="America/New_York",
        )
    assert todo.fake.requests == []


@covers("create_task", "update_task")
async def test_reminders_around_the_berlin_dst_end(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    created = await todo.call(
        "create_task", list_id=tasks, title="Clocks", reminder="2026-10-25T02:30:00", time_zone="Europe/Berlin"
    )
    assert todo.last.json["reminderDateTime"] == dtz("2026-10-25T00:30:00", "UTC")
    assert created["reminder"] == "2026-10-25T02:30:00+02:00"
    assert any("happens twice in Europe/Berlin" in note for note in created["notes"])
    later = await todo.call(
        "update_task",
        list_id=tasks,
        task_id=created["id"],
        reminder="2026-10-25T02:30:00+01:00",
        time_zone="Europe/Berlin",
    )
    assert todo.last.json == {"reminderDateTime": dtz("2026-10-25T01:30:00", "UTC"), "isReminderOn": True}
    assert later["reminder"] == "2026-10-25T02:30:00+01:00"  # the second 02:30, read back with its offset
    after = await todo.call(
        "update_task", list_id=tasks, task_id=created["id"], reminder="2026-10-26T09:00:00", time_zone="Europe/Berlin"
    )
    assert todo.last.json["reminderDateTime"] == dtz("2026-10-26T08:00:00", "UTC")
    assert after["reminder"] == "2026-10-26T09:00:00+01:00" and after["notes"] == []


@covers("get_task")
async def test_windows_zone_names_in_graphs_answers(todo: Harness, world: World) -> None:
    world.honor_prefer = False
    tasks = next(iter(world.lists))
    task_id = world.add_task(
        tasks,
        "From Outlook",
        isReminderOn=True,
        dueDateTime=Stored(verbatim=dtz("2026-03-08T00:00:00.0000000", "Tokyo Standard Time")),
        reminderDateTime=Stored(verbatim=dtz("2026-03-08T09:00:00.0000000", "Tokyo Standard Time")),
    )
    read = await todo.call("get_task", list_id=tasks, task_id=task_id, time_zone="Europe/Berlin")
    assert read["due_date"] == "2026-03-08"
    assert read["reminder"] == "2026-03-08T01:00:00+01:00" and read["notes"] == []
    east = await todo.call("get_task", list_id=tasks, task_id=task_id, time_zone="Eastern Standard Time")
    assert east["reminder"] == "2026-03-07T19:00:00-05:00" and east["time_zone"] == "America/New_York"


@covers("get_task")
async def test_an_unknown_zone_in_an_answer_is_read_as_utc_and_said(todo: Harness, world: World) -> None:
    world.honor_prefer = False
    tasks = next(iter(world.lists))
    task_id = world.add_task(
        tasks,
        "Odd",
        isReminderOn=True,
        reminderDateTime=Stored(verbatim=dtz("2026-03-08T13:00:00.0000000", "Customized Time Zone 7")),
    )
    read = await todo.call("get_task", list_id=tasks, task_id=task_id, time_zone="America/New_York")
    assert read["reminder"] == "2026-03-08T09:00:00-04:00"
    assert read["notes"] == [
        "Graph gave the reminder in an unknown time zone 'Customized Time Zone 7'; it was read as UTC"
    ]


@covers("list_tasks")
async def test_a_due_range_finds_the_day_graph_stored_as_the_day_before(todo: Harness, world: World) -> None:
    """2026-03-08 set in Tokyo is stored 2026-03-07T15:00 UTC: a filter on the day itself would miss it."""
    tasks = next(iter(world.lists))
    for day, title in (("2026-03-07", "before"), ("2026-03-08", "on the day"), ("2026-03-09", "after")):
        world.add_task(tasks, title, dueDateTime=dtz(f"{day}T00:00:00", "Tokyo Standard Time"))
    world.add_task(tasks, "no due date")
    page = await todo.call(
        "list_tasks", list_id=tasks, due_from="2026-03-08", due_to="2026-03-08", time_zone="Asia/Tokyo"
    )
    assert [t["title"] for t in page["items"]] == ["on the day"]
    assert todo.last.params["$filter"] == (
        "status ne 'completed' and dueDateTime/dateTime ge '2026-03-07T00:00:00' "
        "and dueDateTime/dateTime lt '2026-03-10T00:00:00'"
    )
    both = await todo.call("list_tasks", list_id=tasks, due_from="2026-03-08", time_zone="Asia/Tokyo")
    assert [t["title"] for t in both["items"]] == ["on the day", "after"]


@covers("list_tasks")
async def test_a_bad_zone_argument_names_the_field(todo: Harness, world: World) -> None:
    with pytest.raises(InvalidArgument, match="is not a time zone") as caught:
        await todo.call("list_tasks", list_id=next(iter(world.lists)), time_zone="Mars Standard Time")
    assert caught.value.data["field"] == "time_zone" and todo.fake.requests == []
    with pytest.raises(InvalidArgument, match="time_zone"):
        await todo.call("list_tasks", list_id=next(iter(world.lists)), time_zone="Europe/Berlin; DROP")
