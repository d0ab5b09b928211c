"""Tools for calendars themselves: the account's calendar list, creating and deleting one, the color palette."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.upstream import Cursor, Limit, Page

from ._common import CalendarId, TimeZoneName, cal_url, calendar_zone, drop_none, google_errors, google_paged
from ._models import Calendar, Color, Colors, Deleted, calendar_out
from ._module import Ctx, module
from ._times import invalid, zone


@module.tool(read_only=True)
async def list_calendars(
    ctx: Ctx,
    min_access_role: Annotated[
        Literal["freeBusyReader", "reader", "writer", "owner"] | None,
        Field(description="only calendars where the account has at least this role (writer: it can add events)"),
    ] = None,
    show_hidden: bool = False,
    limit: Limit = 50,
    cursor: Cursor = None,
) -> Page[Calendar]:
    """The account's calendars: ids for the other tools, the primary one, access role and each one's time zone."""
    params = drop_none(minAccessRole=min_access_role, showHidden="true" if show_hidden else None)

    def read(body: dict[str, Any]) -> list[Calendar]:
        return [calendar_out(c) for c in ctx.http.parse(list[dict[str, Any]], body.get("items", []))]

    return await google_paged(ctx.http, "/users/me/calendarList", params, read, limit=limit, cursor=cursor)


@module.tool()
async def create_calendar(
    ctx: Ctx,
    summary: Annotated[str, Field(min_length=1, max_length=255, description="the calendar's name")],
    description: Annotated[str | None, Field(max_length=4000)] = None,
    time_zone: Annotated[TimeZoneName, Field(description="IANA zone; default: the primary calendar's")] = None,
) -> Calendar:
    """Create a secondary calendar owned by the account; returns its id."""
    tz = zone(time_zone) if time_zone is not None else await calendar_zone(ctx.http, "primary")
    body = drop_none(summary=summary, description=description, timeZone=tz.key)
    made = ctx.http.parse(dict[str, Any], await ctx.http.post_json("/calendars", body))
    return calendar_out({"accessRole": "owner", **made})


@module.tool(destructive=True, idempotent=True)
async def delete_calendar(ctx: Ctx, calendar_id: CalendarId) -> Deleted:
    """Delete a secondary calendar the account owns, with all its events; the primary calendar cannot be."""
    with google_errors("calendar primary"):
        primary = ctx.http.parse(dict[str, Any], await ctx.http.get_json(cal_url("primary")))
    if calendar_id in ("primary", primary.get("id")):
        raise invalid("the primary calendar cannot be deleted; delete its events instead", "calendar_id")
    with google_errors(f"calendar {calendar_id}"):
        await ctx.http.request("DELETE", cal_url(calendar_id), retry=True)
    return Deleted(id=calendar_id)


@module.tool(read_only=True)
async def list_colors(ctx: Ctx) -> Colors:
    """The color palette: the ids that create_event and update_event take as color_id, with their hex colors."""
    body = ctx.http.parse(dict[str, Any], await ctx.http.get_json("/colors"))

    def palette(key: str) -> list[Color]:
        found = ctx.http.parse(dict[str, dict[str, Any]], body.get(key) or {})
        return [Color(id=k, background=v.get("background"), foreground=v.get("foreground")) for k, v in found.items()]

    return Colors(event=palette("event"), calendar=palette("calendar"))
