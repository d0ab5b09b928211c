"""Contract tests: creating events (time zones into the request body, all-day days, Meet links, attendees,
reminders, recurrence, the conflict check), quick add, moving and answering an invitation."""

from __future__ import annotations

import re

import pytest
from gcal_harness import Harness
from gcal_world import ME, MEET, event

from mcpist.modules import Conflict, InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

NY = "America/New_York"


@covers("create_event")
async def test_an_all_day_event_sends_the_exclusive_end_and_reads_back_the_last_day(gcal: Harness) -> None:
    made = await gcal.call("create_event", summary="Offsite", start="2026-03-08", end="2026-03-09")
    [sent] = gcal.sent("POST /calendars/{calendarId}/events")
    assert sent.path == "/calendars/primary/events"
    assert sent.json == {"summary": "Offsite", "start": {"date": "2026-03-08"}, "end": {"date": "2026-03-10"}}
    assert sent.params == {"sendUpdates": "all"}
    assert (made.all_day, made.start, made.end) == (True, "2026-03-08", "2026-03-09")
    one = await gcal.call("create_event", summary="Holiday", start="2026-12-31", time_zone="Pacific/Kiritimati")
    assert gcal.sent("POST /calendars/{calendarId}/events")[1].json["end"] == {"date": "2027-01-01"}
    assert (one.start, one.end) == ("2026-12-31", "2026-12-31")


async def test_a_local_time_is_read_in_the_calendars_zone_with_that_days_offset(gcal: Harness) -> None:
    made = await gcal.call("create_event", summary="Brunch", start="2026-03-08T11:00", duration_minutes=90)
    assert gcal.sent("GET /calendars/{calendarId}")[0].path == "/calendars/primary"
    body = gcal.sent("POST /calendars/{calendarId}/events")[0].json
    assert body["start"] == {"dateTime": "2026-03-08T11:00:00-04:00", "timeZone": NY}  # EDT since 02:00 that day
    assert body["end"] == {"dateTime": "2026-03-08T12:30:00-04:00", "timeZone": NY}
    assert (made.start, made.end, made.time_zone) == ("2026-03-08T11:00:00-04:00", "2026-03-08T12:30:00-04:00", NY)
    berlin = await gcal.call(
        "create_event",
        summary="Night shift",
        calendar_id="team@group.calendar.google.com",
        start="2026-10-25T01:00",
        end="2026-10-25T04:00",
    )
    body = gcal.sent("POST /calendars/{calendarId}/events")[1].json
    assert (
        body["start"]["dateTime"] == "2026-10-25T01:00:00+02:00"
        and body["end"]["dateTime"] == "2026-10-25T04:00:00+01:00"
    )
    assert body["start"]["timeZone"] == "Europe/Berlin" and berlin.end == "2026-10-25T04:00:00+01:00"


async def test_an_instant_with_offset_and_a_named_zone(gcal: Harness) -> None:
    made = await gcal.call(
        "create_event",
        summary="Flight",
        start="2026-03-09T23:00:00Z",
        end="2026-03-10T12:00:00+09:00",
        time_zone="Asia/Tokyo",
    )
    body = gcal.sent("POST /calendars/{calendarId}/events")[0].json
    assert body["start"] == {"dateTime": "2026-03-10T08:00:00+09:00", "timeZone": "Asia/Tokyo"}
    assert body["end"] == {"dateTime": "2026-03-10T12:00:00+09:00", "timeZone": "Asia/Tokyo"}
    assert made.start == "2026-03-10T08:00:00+09:00" and gcal.sent("GET /calendars/{calendarId}") == []


async def test_times_a_dst_change_skips_or_repeats_are_refused_and_nothing_is_created(gcal: Harness) -> None:
    with pytest.raises(InvalidArgument, match="start: 2026-03-08T02:30 does not exist in America/New_York") as err:
        await gcal.call("create_event", summary="x", start="2026-03-08T02:30", duration_minutes=30)
    assert err.value.data["field"] == "start"
    with pytest.raises(InvalidArgument, match=r"2026-10-25T02:30:00\+02:00 \(the first\)"):
        await gcal.call(
            "create_event", summary="x", start="2026-10-25T02:30", duration_minutes=30, time_zone="Europe/Berlin"
        )
    with pytest.raises(InvalidArgument, match="needs end or duration_minutes"):
        await gcal.call("create_event", summary="x", start="2026-03-09T10:00", time_zone=NY)
    with pytest.raises(InvalidArgument, match="invalid parameter 'start'"):
        await gcal.call("create_event", summary="x", start="tomorrow at 10")
    assert gcal.writes() == []


async def test_a_meet_link_attendees_reminders_and_a_weekly_rule(gcal: Harness) -> None:
    made = await gcal.call(
        "create_event",
        summary="Planning",
        start="2026-03-10T10:00",
        end="2026-03-10T11:00",
        time_zone=NY,
        description="Quarterly planning",
        location="Room 4",
        attendees=["ann@example.com", "bob@example.com"],
        meet=True,
        reminders=["10", "email:1440"],
        recurrence=["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6", "EXDATE;TZID=America/New_York:20260324T100000"],
        color_id="11",
        show_as="busy",
        notify="none",
    )
    [sent] = gcal.sent("POST /calendars/{calendarId}/events")
    assert sent.params == {"sendUpdates": "none", "conferenceDataVersion": "1"}
    body = dict(sent.json)
    ask = body.pop("conferenceData")["createRequest"]
    assert ask["conferenceSolutionKey"] == {"type": "hangoutsMeet"} and re.fullmatch(r"[0-9a-f]{32}", ask["requestId"])
    assert body == {
        "summary": "Planning",
        "start": {"dateTime": "2026-03-10T10:00:00-04:00", "timeZone": NY},
        "end": {"dateTime": "2026-03-10T11:00:00-04:00", "timeZone": NY},
        "description": "Quarterly planning",
        "location": "Room 4",
        "attendees": [{"email": "ann@example.com"}, {"email": "bob@example.com"}],
        "reminders": {
            "useDefault": False,
            "overrides": [{"method": "popup", "minutes": 10}, {"method": "email", "minutes": 1440}],
        },
        "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6", "EXDATE;TZID=America/New_York:20260324T100000"],
        "colorId": "11",
        "transparency": "opaque",
    }
    assert made.meet_link == MEET and made.conference == "success" and made.recurrence == body["recurrence"]
    assert made.attendees == ["ann@example.com", "bob@example.com"]
    with pytest.raises(InvalidArgument, match="reminders: '50000': at most 40320 minutes"):
        await gcal.call("create_event", summary="x", start="2026-03-10", reminders=["50000"])
    with pytest.raises(InvalidArgument, match=r"invalid parameter 'reminders.0'"):
        await gcal.call("create_event", summary="x", start="2026-03-10", reminders=["sms:10"])


async def test_wrong_recurrence_and_attendees_are_refused(gcal: Harness) -> None:
    with pytest.raises(InvalidArgument, match="has no FREQ"):
        await gcal.call("create_event", summary="x", start="2026-03-10", recurrence=["RRULE:BYDAY=TU"])
    with pytest.raises(InvalidArgument, match="both COUNT and UNTIL"):
        await gcal.call(
            "create_event", summary="x", start="2026-03-10", recurrence=["RRULE:FREQ=DAILY;COUNT=2;UNTIL=20260401"]
        )
    with pytest.raises(InvalidArgument, match=r"invalid parameter 'attendees.0'"):
        await gcal.call("create_event", summary="x", start="2026-03-10", attendees=["not an email"])
    assert gcal.writes() == []


async def test_the_conflict_check_refuses_or_warns(gcal: Harness) -> None:
    gcal.world.busy[("tok-work", "primary")] = [("2026-03-10T14:30:00Z", "2026-03-10T15:30:00Z")]
    with pytest.raises(
        Conflict, match="overlaps busy time: 2026-03-10T10:30:00-04:00 to 2026-03-10T11:30:00-04:00"
    ) as err:
        await gcal.call(
            "create_event",
            summary="1:1",
            start="2026-03-10T10:00",
            duration_minutes=60,
            time_zone=NY,
            conflicts="refuse",
        )
    assert err.value.data["conflicts"] == [
        {"start": "2026-03-10T10:30:00-04:00", "end": "2026-03-10T11:30:00-04:00", "calendar": "primary"}
    ]
    [asked] = gcal.sent("POST /freeBusy")
    assert asked.json == {
        "timeMin": "2026-03-10T10:00:00-04:00",
        "timeMax": "2026-03-10T11:00:00-04:00",
        "timeZone": NY,
        "items": [{"id": "primary"}],
    }
    assert gcal.sent("POST /calendars/{calendarId}/events") == []
    made = await gcal.call(
        "create_event", summary="1:1", start="2026-03-10T10:00", duration_minutes=60, time_zone=NY, conflicts="warn"
    )
    assert [c.start for c in made.conflicts] == ["2026-03-10T10:30:00-04:00"] and made.id.startswith("new")
    free = await gcal.call(
        "create_event", summary="later", start="2026-03-10T11:30", duration_minutes=30, time_zone=NY, conflicts="refuse"
    )
    assert free.conflicts == []
    # an all-day event is checked over its whole days in the zone
    with pytest.raises(Conflict):
        await gcal.call("create_event", summary="Away", start="2026-03-10", conflicts="refuse", time_zone=NY)
    assert gcal.sent("POST /freeBusy")[-1].json["timeMax"] == "2026-03-11T00:00:00-04:00"


@covers("quick_add_event")
async def test_quick_add_passes_the_text_and_shows_the_result_in_the_zone(gcal: Harness) -> None:
    made = await gcal.call("quick_add_event", text="Lunch with Ann tomorrow 12:30", time_zone="Europe/Berlin")
    [sent] = gcal.sent("POST /calendars/{calendarId}/events/quickAdd")
    assert sent.params == {"text": "Lunch with Ann tomorrow 12:30", "sendUpdates": "none"}
    assert (made.summary, made.start, made.time_zone) == (
        "Lunch with Ann",
        "2026-03-10T17:30:00+01:00",
        "Europe/Berlin",
    )


@covers("move_event")
async def test_move_to_another_calendar(gcal: Harness) -> None:
    gcal.world.add("primary", event("mv", "Retro", "2026-03-12T15:00:00Z", "2026-03-12T16:00:00Z"))
    moved = await gcal.call("move_event", event_id="mv", destination="team@group.calendar.google.com")
    [sent] = gcal.sent("POST /calendars/{calendarId}/events/{eventId}/move")
    assert sent.path == "/calendars/primary/events/mv/move"
    assert sent.params == {"destination": "team@group.calendar.google.com", "sendUpdates": "all"}
    assert moved.calendar_id == "team@group.calendar.google.com" and moved.start == "2026-03-12T16:00:00+01:00"
    assert "mv" in gcal.world.events["team@group.calendar.google.com"]
    with pytest.raises(NotFound, match="event mv not found"):
        await gcal.call("move_event", event_id="mv", destination="primary")


@covers("respond_to_event")
async def test_answering_an_invitation_changes_only_my_own_entry(gcal: Harness) -> None:
    people = [
        {"email": "ann@example.com", "organizer": True, "responseStatus": "accepted"},
        {"email": ME, "self": True, "responseStatus": "needsAction"},
    ]
    gcal.world.add(
        "primary",
        event(
            "inv",
            "Kickoff",
            "2026-03-11T14:00:00Z",
            "2026-03-11T15:00:00Z",
            attendees=people,
            organizer={"email": "ann@example.com"},
        ),
        event("own", "Mine", "2026-03-11T16:00:00Z", "2026-03-11T17:00:00Z"),
    )
    answered = await gcal.call("respond_to_event", event_id="inv", response="declined", comment="Out that day")
    [sent] = gcal.sent("PATCH /calendars/{calendarId}/events/{eventId}")
    assert sent.params == {"sendUpdates": "all"}
    assert sent.json == {
        "attendees": [
            {"email": "ann@example.com", "organizer": True, "responseStatus": "accepted"},
            {"email": ME, "self": True, "responseStatus": "declined", "comment": "Out that day"},
        ]
    }
    assert answered.my_response == "declined"
    with pytest.raises(InvalidArgument, match="not among the attendees"):
        await gcal.call("respond_to_event", event_id="own", response="accepted")
