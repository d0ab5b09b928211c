"""Contract tests: editing and deleting a recurring series by one occurrence - scope "this" (an exception),
"all" (the master, moved as the occurrence moves, in local wall-clock time across DST) and "following" (the
series split: the master ends before the occurrence, a new series starts at it)."""

from __future__ import annotations

from typing import Any

import pytest
from gcal_harness import Harness
from gcal_world import ME, World, event, google_error

from mcpist.modules import InvalidArgument, PermissionDenied
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

NY = "America/New_York"
RULE = "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10"
# occurrences of "every Tuesday 09:00-09:30 New York": EST until March 8th, EDT after
DATES = {
    "20260303T140000Z": "2026-03-03T09:00:00-05:00",
    "20260310T130000Z": "2026-03-10T09:00:00-04:00",
    "20260317T130000Z": "2026-03-17T09:00:00-04:00",
}


def series(world: World, rule: str = RULE) -> None:
    people = [
        {"email": ME, "self": True, "organizer": True, "responseStatus": "accepted"},
        {"email": "ann@example.com"},
    ]
    world.add(
        "primary",
        event(
            "wk",
            "Standup",
            "2026-03-03T09:00:00-05:00",
            "2026-03-03T09:30:00-05:00",
            NY,
            recurrence=[rule],
            attendees=people,
            location="Room 1",
            reminders={"useDefault": True},
        ),
    )
    for suffix, start in DATES.items():
        end = start.replace("T09:00", "T09:30")
        world.add(
            "primary",
            event(
                f"wk_{suffix}",
                "Standup",
                start,
                end,
                NY,
                recurringEventId="wk",
                originalStartTime={"dateTime": start, "timeZone": NY},
                attendees=people,
            ),
        )


def all_day_series(world: World) -> None:
    world.add("primary", event("bd", "Bins out", "2026-03-02", "2026-03-03", recurrence=["RRULE:FREQ=WEEKLY;BYDAY=MO"]))
    for day in ("2026-03-02", "2026-03-09", "2026-03-16"):
        nxt = f"2026-03-{int(day[8:]) + 1:02}"
        world.add(
            "primary",
            event(
                f"bd_{day.replace('-', '')}",
                "Bins out",
                day,
                nxt,
                recurringEventId="bd",
                originalStartTime={"date": day},
            ),
        )


def patches(gcal: Harness) -> list[tuple[str, Any]]:
    return [(r.path.rsplit("/", 1)[1], r.json) for r in gcal.sent("PATCH /calendars/{calendarId}/events/{eventId}")]


@covers("update_event")
async def test_this_occurrence_becomes_an_exception(gcal: Harness) -> None:
    series(gcal.world)
    done = await gcal.call(
        "update_event", event_id="wk_20260317T130000Z", start="2026-03-17T10:00", summary="Late standup"
    )
    assert patches(gcal) == [
        (
            "wk_20260317T130000Z",
            {
                "summary": "Late standup",
                "start": {"dateTime": "2026-03-17T10:00:00-04:00", "timeZone": NY},
                "end": {"dateTime": "2026-03-17T10:30:00-04:00", "timeZone": NY},  # start alone keeps the length
            },
        )
    ]
    assert (done.start, done.end, done.recurring_event_id) == (
        "2026-03-17T10:00:00-04:00",
        "2026-03-17T10:30:00-04:00",
        "wk",
    )
    assert gcal.world.stored("primary", "wk")["summary"] == "Standup"


async def test_all_moves_the_master_in_wall_clock_time_across_dst(gcal: Harness) -> None:
    series(gcal.world)
    done = await gcal.call(
        "update_event", event_id="wk_20260317T130000Z", scope="all", start="2026-03-17T10:00", duration_minutes=45
    )
    # the occurrence moves from 09:00 to 10:00 EDT; the master, in EST, moves to 10:00 EST - not 09:00 EST
    assert patches(gcal) == [
        (
            "wk",
            {
                "start": {"dateTime": "2026-03-03T10:00:00-05:00", "timeZone": NY},
                "end": {"dateTime": "2026-03-03T10:45:00-05:00", "timeZone": NY},
            },
        )
    ]
    assert done.id == "wk" and done.recurrence == [RULE]


async def test_all_with_only_a_new_title_leaves_times_alone_and_master_ids_need_all(gcal: Harness) -> None:
    series(gcal.world)
    await gcal.call("update_event", event_id="wk_20260310T130000Z", scope="all", summary="Daily sync")
    assert patches(gcal) == [("wk", {"summary": "Daily sync"})]
    with pytest.raises(InvalidArgument, match="scope: wk is a whole series"):
        await gcal.call("update_event", event_id="wk", summary="x")
    with pytest.raises(InvalidArgument, match="changes the series' rule: pass recurrence"):
        await gcal.call("update_event", event_id="wk_20260310T130000Z", scope="all", start="2026-03-11T09:00")
    moved = await gcal.call(
        "update_event",
        event_id="wk_20260310T130000Z",
        scope="all",
        start="2026-03-11T09:00",
        recurrence=["RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=10"],
    )
    assert patches(gcal)[-1][1]["start"] == {"dateTime": "2026-03-04T09:00:00-05:00", "timeZone": NY}
    assert moved.recurrence == ["RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=10"]


async def test_following_splits_the_series_and_continues_the_count(gcal: Harness) -> None:
    series(gcal.world)
    done = await gcal.call("update_event", event_id="wk_20260317T130000Z", scope="following", summary="Standup v2")
    [counted] = gcal.sent("GET /calendars/{calendarId}/events/{eventId}/instances")
    assert counted.params == {"timeMax": "2026-03-17T09:00:00-04:00", "showDeleted": "true", "maxResults": "250"}
    assert gcal.writes() == [
        "POST /calendars/primary/events",  # the new series first: a failure loses nothing
        "PATCH /calendars/primary/events/wk",
    ]
    created = gcal.sent("POST /calendars/{calendarId}/events")[0]
    assert created.params == {"sendUpdates": "all"}
    assert created.json == {
        "summary": "Standup v2",
        "location": "Room 1",
        "attendees": [{"email": ME, "responseStatus": "accepted"}, {"email": "ann@example.com"}],  # no read-only keys
        "reminders": {"useDefault": True},
        "start": {"dateTime": "2026-03-17T09:00:00-04:00", "timeZone": NY},
        "end": {"dateTime": "2026-03-17T09:30:00-04:00", "timeZone": NY},
        "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8"],  # 10 minus the two before it
    }
    # UNTIL is inclusive: the UTC second before the occurrence
    assert patches(gcal) == [("wk", {"recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20260317T125959Z"]})]
    assert done.split_from == "wk" and done.summary == "Standup v2" and done.start == "2026-03-17T09:00:00-04:00"


async def test_following_with_a_new_time_and_an_open_ended_rule(gcal: Harness) -> None:
    series(gcal.world, "RRULE:FREQ=WEEKLY;BYDAY=TU")
    await gcal.call("update_event", event_id="wk_20260310T130000Z", scope="following", start="2026-03-10T08:30")
    assert gcal.sent("GET /calendars/{calendarId}/events/{eventId}/instances") == []  # no COUNT to continue
    body = gcal.sent("POST /calendars/{calendarId}/events")[0].json
    assert (
        body["start"]["dateTime"] == "2026-03-10T08:30:00-04:00"
        and body["end"]["dateTime"] == "2026-03-10T09:00:00-04:00"
    )
    assert body["recurrence"] == ["RRULE:FREQ=WEEKLY;BYDAY=TU"]
    assert patches(gcal) == [("wk", {"recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20260310T125959Z"]})]


async def test_following_from_the_first_occurrence_is_all(gcal: Harness) -> None:
    series(gcal.world)
    await gcal.call("update_event", event_id="wk_20260303T140000Z", scope="following", location="Room 2")
    assert gcal.writes() == ["PATCH /calendars/primary/events/wk"]
    assert patches(gcal) == [("wk", {"location": "Room 2"})]


async def test_a_split_that_cannot_end_the_old_series_removes_the_new_one(gcal: Harness) -> None:
    series(gcal.world)
    gcal.world.errors["PATCH wk"] = google_error(403, "Forbidden", "forbidden")
    with pytest.raises(PermissionDenied):
        await gcal.call("update_event", event_id="wk_20260317T130000Z", scope="following", summary="v2")
    assert gcal.writes() == [
        "POST /calendars/primary/events",
        "PATCH /calendars/primary/events/wk",
        "DELETE /calendars/primary/events/new1",
    ]


@covers("delete_event")
async def test_delete_this_following_and_all(gcal: Harness) -> None:
    series(gcal.world)
    gone = await gcal.call("delete_event", event_id="wk_20260310T130000Z")
    assert gone.id == "wk_20260310T130000Z" and gcal.writes() == [
        "DELETE /calendars/primary/events/wk_20260310T130000Z"
    ]
    assert gcal.sent("DELETE /calendars/{calendarId}/events/{eventId}")[0].params == {"sendUpdates": "all"}
    await gcal.call("delete_event", event_id="wk_20260317T130000Z", scope="following", notify="none")
    assert patches(gcal) == [("wk", {"recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20260317T125959Z"]})]
    assert gcal.sent("PATCH /calendars/{calendarId}/events/{eventId}")[0].params == {"sendUpdates": "none"}
    whole = await gcal.call("delete_event", event_id="wk_20260303T140000Z", scope="following")
    assert whole.id == "wk" and gcal.writes()[-1] == "DELETE /calendars/primary/events/wk"
    again = await gcal.call("delete_event", event_id="wk", scope="all")
    assert again.deleted and "already deleted" in (again.note or "")  # Google's 410: nothing left to do
    with pytest.raises(InvalidArgument, match="scope: wk is a whole series"):
        await gcal.call("delete_event", event_id="wk")


async def test_an_all_day_series_ends_on_the_day_before(gcal: Harness) -> None:
    all_day_series(gcal.world)
    await gcal.call("delete_event", event_id="bd_20260309", scope="following")
    assert patches(gcal) == [("bd", {"recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260308"]})]
    await gcal.call("update_event", event_id="bd_20260316", scope="all", end="2026-03-17")
    # two days long now: Google's exclusive end is two days after the (unchanged) first day
    assert patches(gcal)[-1] == ("bd", {"start": {"date": "2026-03-02"}, "end": {"date": "2026-03-04"}})


async def test_a_single_event_becomes_a_series_in_a_named_zone(gcal: Harness) -> None:
    gcal.world.add("primary", event("one", "Review", "2026-03-12T15:00:00Z", "2026-03-12T16:00:00Z"))
    made = await gcal.call("update_event", event_id="one", recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"])
    assert patches(gcal) == [
        (
            "one",
            {
                "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=4"],
                "start": {"dateTime": "2026-03-12T11:00:00-04:00", "timeZone": NY},
                "end": {"dateTime": "2026-03-12T12:00:00-04:00", "timeZone": NY},
            },
        )
    ]
    assert made.recurrence == ["RRULE:FREQ=WEEKLY;COUNT=4"]
    with pytest.raises(InvalidArgument, match="scope: one is a whole series"):  # it is one now
        await gcal.call("update_event", event_id="one", summary="x")
    gcal.world.add("primary", event("two", "Other", "2026-03-13", "2026-03-14"))
    with pytest.raises(InvalidArgument, match="nothing to change"):
        await gcal.call("update_event", event_id="two")
    series(gcal.world)
    with pytest.raises(InvalidArgument, match="a rule belongs to the series"):
        await gcal.call("update_event", event_id="wk_20260310T130000Z", recurrence=["RRULE:FREQ=DAILY"])
