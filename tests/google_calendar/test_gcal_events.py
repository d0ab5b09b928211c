"""Contract tests: reading events - time zones of ranges and results, all-day days, pages, search across
calendars, one event, a series' occurrences, incremental sync, and how Google's errors reach the caller."""

from __future__ import annotations

import pytest
from gcal_harness import Harness
from gcal_world import ME, MEET, World, event, google_error

from mcpist.modules import InvalidArgument, NotFound, PermissionDenied, Unavailable
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


def day_of_events(world: World) -> None:
    world.add(
        "primary",
        # stored as Google may answer: UTC instants; the calendar is in New York
        event("a", "Breakfast", "2026-03-08T12:00:00Z", "2026-03-08T13:00:00Z"),
        event("b", "Conference", "2026-03-08", "2026-03-10"),  # two days: the 8th and the 9th
        event("c", "Call with Tokyo", "2026-03-08T23:00:00+09:00", "2026-03-09T00:00:00+09:00", "Asia/Tokyo"),
        event("d", "Next day", "2026-03-09T14:00:00Z", "2026-03-09T15:00:00Z"),
    )


@covers("list_events")
async def test_a_day_in_the_calendars_zone_across_the_dst_change(gcal: Harness) -> None:
    day_of_events(gcal.world)
    page = await gcal.call("list_events", time_min="2026-03-08", time_max="2026-03-08")
    [zone_lookup] = gcal.sent("GET /calendars/{calendarId}")
    assert zone_lookup.path == "/calendars/primary"
    [listed] = gcal.sent("GET /calendars/{calendarId}/events")
    assert listed.params == {
        # New York's March 8th has 23 hours: midnight EST to midnight EDT
        "timeMin": "2026-03-08T00:00:00-05:00",
        "timeMax": "2026-03-09T00:00:00-04:00",
        "singleEvents": "true",
        "orderBy": "startTime",
        "maxResults": "50",
    }
    assert page.time_zone == "America/New_York" and page.next_cursor is None
    shown = {e.id: (e.all_day, e.start, e.end) for e in page.items}
    assert shown == {
        "a": (False, "2026-03-08T08:00:00-04:00", "2026-03-08T09:00:00-04:00"),
        "b": (True, "2026-03-08", "2026-03-09"),  # the last day, inclusive; never shifted
        "c": (False, "2026-03-08T10:00:00-04:00", "2026-03-08T11:00:00-04:00"),
    }


async def test_results_in_a_zone_the_caller_names(gcal: Harness) -> None:
    day_of_events(gcal.world)
    page = await gcal.call(
        "list_events", time_min="2026-03-08T00:00", time_max="2026-03-10T00:00", time_zone="Asia/Tokyo"
    )
    assert gcal.sent("GET /calendars/{calendarId}") == []  # the caller's zone needs no lookup
    [listed] = gcal.sent("GET /calendars/{calendarId}/events")
    assert (listed.params["timeMin"], listed.params["timeMax"]) == (
        "2026-03-08T00:00:00+09:00",
        "2026-03-10T00:00:00+09:00",
    )
    shown = {e.id: (e.start, e.end) for e in page.items}
    assert shown["a"] == ("2026-03-08T21:00:00+09:00", "2026-03-08T22:00:00+09:00")
    assert shown["b"] == ("2026-03-08", "2026-03-09")  # an all-day event is the same days in every zone
    assert shown["d"] == ("2026-03-09T23:00:00+09:00", "2026-03-10T00:00:00+09:00")
    assert page.time_zone == "Asia/Tokyo"
    dumped = await gcal.dump("list_events", time_min="2026-03-08", time_max="2026-03-08", time_zone="UTC")
    assert "time_zone" not in dumped["items"][0] and dumped["time_zone"] == "UTC"


async def test_a_bad_zone_or_time_is_refused_before_any_request(gcal: Harness) -> None:
    with pytest.raises(InvalidArgument, match="'Europe/Paris2' is not an IANA time zone"):
        await gcal.call("list_events", time_zone="Europe/Paris2")
    with pytest.raises(InvalidArgument, match="time_min: 2026-03-08T02:30 does not exist in America/New_York"):
        await gcal.call("list_events", time_min="2026-03-08T02:30", time_max="2026-03-09")
    with pytest.raises(InvalidArgument, match="time_max"):
        await gcal.call("list_events", time_min="2026-03-08", time_max="2026-13-01", time_zone="UTC")
    assert [r for r in gcal.fake.requests if r.operation != "GET /calendars/{calendarId}"] == []


async def test_pages_lose_nothing_and_the_cursor_keeps_the_place(gcal: Harness) -> None:
    gcal.world.add(
        "primary",
        *(
            event(
                f"e{n:02}",
                f"Event {n}",
                f"2026-03-{1 + n // 4:02}T{10 + n % 4}:00:00Z",
                f"2026-03-{1 + n // 4:02}T{10 + n % 4}:30:00Z",
            )
            for n in range(75)
        ),
    )
    seen: list[str] = []
    cursor = None
    for _ in range(5):
        page = await gcal.call(
            "list_events", time_min="2026-03-01", time_max="2026-03-31", time_zone="UTC", limit=30, cursor=cursor
        )
        seen += [e.id for e in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [f"e{n:02}" for n in range(75)]
    tokens = [r.params.get("pageToken") for r in gcal.sent("GET /calendars/{calendarId}/events")]
    assert tokens == [None, "30", "60"]
    with pytest.raises(InvalidArgument, match="cursor is not one this tool returned"):
        await gcal.call("list_events", time_zone="UTC", cursor="garbage")


async def test_series_unexpanded_come_as_masters_with_their_rule(gcal: Harness) -> None:
    gcal.world.add(
        "primary",
        event(
            "wk",
            "Standup",
            "2026-03-03T09:00:00-05:00",
            "2026-03-03T09:15:00-05:00",
            "America/New_York",
            recurrence=["RRULE:FREQ=WEEKLY;BYDAY=TU"],
        ),
    )
    page = await gcal.call("list_events", time_min="2026-03-01", time_max="2026-03-31", expand_recurring=False)
    [listed] = gcal.sent("GET /calendars/{calendarId}/events")
    assert "orderBy" not in listed.params and listed.params["singleEvents"] == "false"
    assert page.items[0].recurrence == ["RRULE:FREQ=WEEKLY;BYDAY=TU"]


@covers("search_events")
async def test_search_merges_calendars_by_start_time_in_one_zone(gcal: Harness) -> None:
    gcal.world.add(
        "primary",
        event("p1", "Review budget", "2026-03-09T14:00:00Z", "2026-03-09T15:00:00Z"),
        event("p2", "Review hiring", "2026-03-11T14:00:00Z", "2026-03-11T15:00:00Z"),
        event("p3", "Lunch", "2026-03-09T16:00:00Z", "2026-03-09T17:00:00Z"),
    )
    gcal.world.add(
        "team@group.calendar.google.com",
        event("t1", "Team review", "2026-03-10T08:00:00+01:00", "2026-03-10T09:00:00+01:00"),
        event("t2", "Sprint review", "2026-03-12T08:00:00+01:00", "2026-03-12T09:00:00+01:00"),
    )
    found: list[tuple[str, str | None, str | None]] = []
    cursor = None
    for _ in range(4):
        page = await gcal.call(
            "search_events",
            query="review",
            calendar_ids=["primary", "team@group.calendar.google.com"],
            time_min="2026-03-01",
            time_max="2026-03-31",
            limit=2,
            cursor=cursor,
        )
        found += [(e.id, e.calendar_id, e.start) for e in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert found == [
        ("p1", "primary", "2026-03-09T10:00:00-04:00"),
        ("t1", "team@group.calendar.google.com", "2026-03-10T03:00:00-04:00"),
        ("p2", "primary", "2026-03-11T10:00:00-04:00"),
        ("t2", "team@group.calendar.google.com", "2026-03-12T03:00:00-04:00"),
    ]
    listed = gcal.sent("GET /calendars/{calendarId}/events")
    assert {r.params["q"] for r in listed} == {"review"} and all(r.params["singleEvents"] == "true" for r in listed)
    assert page.time_zone == "America/New_York"  # the first calendar's


async def test_search_keeps_start_order_when_a_calendar_answers_short_pages(gcal: Harness) -> None:
    team = "team@group.calendar.google.com"
    gcal.world.page_cap[team] = 1
    gcal.world.add(team, *(event(f"t{d}", "x review", f"2026-03-0{d}", f"2026-03-0{d + 1}") for d in (1, 3, 5)))
    gcal.world.add("primary", *(event(f"p{d}", "y review", f"2026-03-0{d}", f"2026-03-0{d + 1}") for d in (2, 4, 6)))
    seen: list[str] = []
    cursor = None
    for _ in range(6):
        page = await gcal.call(
            "search_events",
            query="review",
            calendar_ids=[team, "primary"],
            time_min="2026-03-01",
            time_max="2026-03-31",
            time_zone="UTC",
            limit=6,
            cursor=cursor,
        )
        seen += [e.id for e in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    # the team calendar's next page may hold earlier events than the rest of primary's: wait for it
    assert seen == ["t1", "p2", "t3", "p4", "t5", "p6"]


async def test_search_checks_its_calendars(gcal: Harness) -> None:
    with pytest.raises(InvalidArgument, match="calendar_ids"):
        await gcal.call("search_events", query="x", calendar_ids=[f"c{n}" for n in range(11)])
    with pytest.raises(NotFound, match=r"calendar nobody@example.com not found, or the account cannot see it"):
        await gcal.call("search_events", query="x", calendar_ids=["nobody@example.com"], time_zone="UTC")


@covers("get_event")
async def test_one_event_with_people_meet_reminders_and_its_own_zone(gcal: Harness) -> None:
    gcal.world.add(
        "primary",
        event(
            "m1",
            "Design review",
            "2026-03-09T10:00:00+09:00",
            "2026-03-09T11:00:00+09:00",
            "Asia/Tokyo",
            description="<b>Agenda</b>\n" + "x" * 300,
            attendees=[
                {"email": "ann@example.com", "displayName": "Ann", "responseStatus": "accepted", "organizer": True},
                {"email": ME, "self": True, "responseStatus": "tentative"},
                {"email": "bob@example.com", "responseStatus": "needsAction", "optional": True},
            ],
            organizer={"email": "ann@example.com"},
            hangoutLink=MEET,
            reminders={"useDefault": False, "overrides": [{"method": "popup", "minutes": 10}]},
            transparency="transparent",
        ),
    )
    found = await gcal.call("get_event", event_id="m1", max_chars=200)
    assert (found.start, found.end, found.time_zone) == (
        "2026-03-08T21:00:00-04:00",
        "2026-03-08T22:00:00-04:00",
        "America/New_York",
    )
    assert found.event_time_zone == "Asia/Tokyo" and found.meet_link == MEET and found.my_response == "tentative"
    assert [(a.email, a.response, a.me) for a in found.attendees][1] == (ME, "tentative", True)
    assert found.organizer == "ann@example.com" and found.show_as == "free"
    assert [(r.method, r.minutes) for r in found.reminders] == [("popup", 10)]
    assert found.description.startswith("<b>Agenda</b>") and found.description_next_offset
    rest = await gcal.call("get_event", event_id="m1", offset=found.description_next_offset, time_zone="Asia/Tokyo")
    assert (
        rest.description.endswith("xxx") and rest.start == "2026-03-09T10:00:00+09:00" and rest.event_time_zone is None
    )


async def test_googles_errors_reach_the_caller_mapped(gcal: Harness) -> None:
    with pytest.raises(NotFound, match="event nope not found, or the account cannot see it"):
        await gcal.call("get_event", event_id="nope", time_zone="UTC")
    gcal.world.errors["secret"] = google_error(403, "Forbidden", "forbidden")
    with pytest.raises(PermissionDenied, match="google_calendar denied access: Forbidden"):
        await gcal.call("get_event", event_id="secret", time_zone="UTC")
    gcal.world.errors["busy"] = google_error(403, "Rate Limit Exceeded", "rateLimitExceeded")
    with pytest.raises(Unavailable, match="rate limiting"):
        await gcal.call("get_event", event_id="busy", time_zone="UTC")
    gcal.world.errors["spent"] = google_error(403, "Calendar usage limits exceeded.", "quotaExceeded")
    with pytest.raises(Unavailable, match="usage limit"):
        await gcal.call("get_event", event_id="spent", time_zone="UTC")


@covers("list_event_instances")
async def test_the_occurrences_of_a_series(gcal: Harness) -> None:
    series = event(
        "wk",
        "Standup",
        "2026-03-03T09:00:00-05:00",
        "2026-03-03T09:15:00-05:00",
        "America/New_York",
        recurrence=["RRULE:FREQ=WEEKLY;BYDAY=TU"],
    )
    gcal.world.add(
        "primary",
        series,
        *(
            event(
                f"wk_{d}",
                "Standup",
                f"2026-03-{d[6:8]}T{d[9:11]}:00:00Z",
                f"2026-03-{d[6:8]}T{d[9:11]}:15:00Z",
                recurringEventId="wk",
                originalStartTime={"dateTime": f"2026-03-{d[6:8]}T{d[9:11]}:00:00Z"},
            )
            for d in ("20260303T14", "20260310T13", "20260317T13")
        ),
    )
    page = await gcal.call("list_event_instances", event_id="wk", time_min="2026-03-01", time_max="2026-03-31")
    assert [(e.id, e.start) for e in page.items] == [
        ("wk_20260303T14", "2026-03-03T09:00:00-05:00"),
        ("wk_20260310T13", "2026-03-10T09:00:00-04:00"),  # 09:00 local on both sides of the change
        ("wk_20260317T13", "2026-03-17T09:00:00-04:00"),
    ]
    assert all(e.recurring_event_id == "wk" for e in page.items)


@covers("get_event_changes")
async def test_incremental_sync_and_an_expired_token(gcal: Harness) -> None:
    gcal.world.add("primary", *(event(f"s{n}", f"E{n}", "2026-03-09", "2026-03-10") for n in range(5)))
    first = await gcal.call("get_event_changes", limit=3)
    assert [e.id for e in first.items] == ["s0", "s1", "s2"] and first.sync_token is None and first.next_cursor
    rest = await gcal.call("get_event_changes", limit=3, cursor=first.next_cursor)
    assert [e.id for e in rest.items] == ["s3", "s4"] and rest.sync_token == "sync-1" and rest.next_cursor is None
    full = gcal.sent("GET /calendars/{calendarId}/events")[0].params
    assert full == {"showDeleted": "true", "maxResults": "3"}
    gcal.world.changes = [event("s1", "E1 renamed", "2026-03-09", "2026-03-10"), {"id": "s2", "status": "cancelled"}]
    changed = await gcal.call("get_event_changes", sync_token="sync-1")
    assert [(e.id, e.status, e.summary) for e in changed.items] == [
        ("s1", None, "E1 renamed"),
        ("s2", "cancelled", None),
    ]
    assert changed.sync_token == "sync-2"
    assert gcal.sent("GET /calendars/{calendarId}/events")[-1].params["syncToken"] == "sync-1"
    with pytest.raises(NotFound, match=r"sync_token has expired .* full sync") as gone:
        await gcal.call("get_event_changes", sync_token="expired")
    assert gone.value.data["status"] == 410 and gone.value.data["field"] == "sync_token"
