"""Contract tests: free time from freeBusy across calendars and across accounts of this module (each asked with
its own credential), within working hours in a zone, across DST; and raw busy periods."""

from __future__ import annotations

import pytest
from gcal_harness import Harness

from mcpist.modules import InvalidArgument
from mcpist.testing import FakeCredentials, covers

pytestmark = pytest.mark.anyio

NY = "America/New_York"
TEAM = "team@group.calendar.google.com"


def two_accounts(gcal: Harness) -> None:
    gcal.others = {"home": FakeCredentials("tok-home")}
    gcal.world.busy[("tok-work", "primary")] = [("2026-03-09T14:00:00Z", "2026-03-09T15:00:00Z")]
    gcal.world.busy[("tok-work", TEAM)] = [("2026-03-09T15:30:00Z", "2026-03-09T16:00:00Z")]
    gcal.world.busy[("tok-home", "primary")] = [
        ("2026-03-09T16:00:00Z", "2026-03-09T17:30:00Z"),
        ("2026-03-10T13:00:00Z", "2026-03-10T21:00:00Z"),  # all of Tuesday's working hours
    ]


@covers("find_free_time")
async def test_free_time_merges_busy_time_of_two_accounts(gcal: Harness) -> None:
    two_accounts(gcal)
    free = await gcal.call(
        "find_free_time",
        time_min="2026-03-09",
        time_max="2026-03-10",
        calendar_ids=["primary", TEAM],
        accounts=["home"],
    )
    assert free.time_zone == NY
    assert [(s.start, s.end, s.minutes) for s in free.slots] == [
        ("2026-03-09T09:00:00-04:00", "2026-03-09T10:00:00-04:00", 60),
        ("2026-03-09T11:00:00-04:00", "2026-03-09T11:30:00-04:00", 30),
        ("2026-03-09T13:30:00-04:00", "2026-03-09T17:00:00-04:00", 210),
    ]
    assert free.checked == ["primary", TEAM, "home:primary"] and free.unavailable == []
    asked = gcal.sent("POST /freeBusy")
    assert [r.headers["Authorization"] for r in asked] == ["Bearer tok-work", "Bearer tok-home"]
    assert asked[0].json == {
        "timeMin": "2026-03-09T00:00:00-04:00",
        "timeMax": "2026-03-11T00:00:00-04:00",
        "timeZone": NY,
        "items": [{"id": "primary"}, {"id": TEAM}],
    }
    assert asked[1].json["items"] == [{"id": "primary"}]
    longer = await gcal.call(
        "find_free_time",
        time_min="2026-03-09",
        time_max="2026-03-10",
        calendar_ids=["primary", TEAM],
        accounts=["home"],
        min_minutes=45,
    )
    assert [s.minutes for s in longer.slots] == [60, 210]


async def test_a_calendar_google_cannot_read_is_reported_not_taken_as_free(gcal: Harness) -> None:
    two_accounts(gcal)
    free = await gcal.call(
        "find_free_time",
        time_min="2026-03-10",
        time_max="2026-03-10",
        time_zone=NY,
        accounts=["home:family@group.calendar.google.com", "work"],
    )
    assert free.unavailable == ["home:family@group.calendar.google.com: notFound"]
    assert free.checked == ["primary"]  # "work" is this call's own account: not asked twice
    assert [(s.start, s.end) for s in free.slots] == [("2026-03-10T09:00:00-04:00", "2026-03-10T17:00:00-04:00")]
    with pytest.raises(InvalidArgument, match="no google_calendar account named 'nobody'"):
        await gcal.call("find_free_time", time_zone=NY, accounts=["nobody"])


async def test_working_hours_in_berlin_across_the_fall_back_weekend(gcal: Harness) -> None:
    gcal.world.busy[("tok-work", "primary")] = []
    free = await gcal.call(
        "find_free_time",
        time_min="2026-10-23",
        time_max="2026-10-26",
        time_zone="Europe/Berlin",
        day_start="08:30",
        day_end="12:00",
        limit=2,
    )
    assert [(s.start, s.end) for s in free.slots] == [
        ("2026-10-23T08:30:00+02:00", "2026-10-23T12:00:00+02:00"),  # Friday, summer time
        ("2026-10-26T08:30:00+01:00", "2026-10-26T12:00:00+01:00"),  # Monday, winter time
    ]
    weekend = await gcal.call(
        "find_free_time",
        time_min="2026-10-25",
        time_max="2026-10-25",
        time_zone="Europe/Berlin",
        day_start="00:00",
        day_end="24:00",
        weekdays=["sun"],
    )
    assert [s.minutes for s in weekend.slots] == [25 * 60] and weekend.truncated is False
    with pytest.raises(InvalidArgument, match="day_end: must be after day_start"):
        await gcal.call("find_free_time", time_zone=NY, day_start="17:00", day_end="09:00")
    with pytest.raises(InvalidArgument, match="longer than 62 days"):
        await gcal.call("find_free_time", time_zone=NY, time_min="2026-01-01", time_max="2026-12-31")


@covers("get_freebusy")
async def test_busy_periods_of_other_peoples_calendars(gcal: Harness) -> None:
    gcal.world.busy[("tok-work", "ann@example.com")] = [("2026-03-09T14:00:00Z", "2026-03-09T15:00:00Z")]
    found = await gcal.call(
        "get_freebusy",
        calendar_ids=["ann@example.com", "zed@example.com"],
        time_min="2026-03-09",
        time_max="2026-03-09",
        time_zone="Asia/Tokyo",
    )
    assert found.time_zone == "Asia/Tokyo"
    assert [(c.calendar, [(b.start, b.end) for b in c.busy], c.error) for c in found.calendars] == [
        ("ann@example.com", [("2026-03-09T23:00:00+09:00", "2026-03-10T00:00:00+09:00")], None),
        ("zed@example.com", [], "notFound"),
    ]
    assert gcal.sent("POST /freeBusy")[0].json["timeMin"] == "2026-03-09T00:00:00+09:00"
