"""Contract tests: the calendar list (paged), creating and deleting calendars, and the color palette."""

from __future__ import annotations

import pytest
from gcal_harness import Harness
from gcal_world import ME

from mcpist.modules import InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("list_calendars")
async def test_the_calendar_list_pages_and_filters(gcal: Harness) -> None:
    first = await gcal.call("list_calendars", limit=2)
    assert [(c.id, c.primary, c.access_role, c.time_zone) for c in first.items] == [
        (ME, True, "owner", "America/New_York"),
        ("team@group.calendar.google.com", False, "writer", "Europe/Berlin"),
    ]
    rest = await gcal.call("list_calendars", limit=2, cursor=first.next_cursor)
    assert [c.summary for c in rest.items] == ["Tokyo office"] and rest.next_cursor is None
    assert [r.params for r in gcal.sent("GET /users/me/calendarList")] == [
        {"maxResults": "2"},
        {"maxResults": "2", "pageToken": "2"},
    ]
    writable = await gcal.call("list_calendars", min_access_role="writer", show_hidden=True)
    assert len(writable.items) == 2
    assert gcal.sent("GET /users/me/calendarList")[-1].params == {
        "minAccessRole": "writer",
        "showHidden": "true",
        "maxResults": "50",
    }


@covers("create_calendar", "delete_calendar")
async def test_create_a_calendar_in_a_zone_then_delete_it(gcal: Harness) -> None:
    made = await gcal.call("create_calendar", summary="Trips", description="Flights and hotels", time_zone="Asia/Tokyo")
    assert gcal.sent("POST /calendars")[0].json == {
        "summary": "Trips",
        "description": "Flights and hotels",
        "timeZone": "Asia/Tokyo",
    }
    assert (made.id, made.time_zone, made.access_role) == ("new1@group.calendar.google.com", "Asia/Tokyo", "owner")
    # without a zone, the new calendar takes the account's own (the primary calendar's)
    await gcal.call("create_calendar", summary="Home")
    assert gcal.sent("POST /calendars")[1].json == {"summary": "Home", "timeZone": "America/New_York"}
    with pytest.raises(InvalidArgument, match="not an IANA time zone"):
        await gcal.call("create_calendar", summary="x", time_zone="Nowhere/Land")
    gone = await gcal.call("delete_calendar", calendar_id=made.id)
    assert gone.id == made.id and gone.deleted
    assert gcal.sent("DELETE /calendars/{calendarId}")[0].path == "/calendars/new1@group.calendar.google.com"
    with pytest.raises(NotFound, match=r"calendar new1@group.calendar.google.com not found"):
        await gcal.call("delete_calendar", calendar_id=made.id)
    with pytest.raises(InvalidArgument, match="the primary calendar cannot be deleted"):
        await gcal.call("delete_calendar", calendar_id="primary")
    with pytest.raises(InvalidArgument, match="the primary calendar cannot be deleted"):
        await gcal.call("delete_calendar", calendar_id=ME)


@covers("list_colors")
async def test_the_palette_for_color_id(gcal: Harness) -> None:
    colors = await gcal.call("list_colors")
    assert [(c.id, c.background) for c in colors.event] == [("1", "#a4bdfc"), ("11", "#dc2127")]
    assert [c.id for c in colors.calendar] == ["1"]
