"""The `google_calendar` module object: settings, OAuth and the guide the LLM reads."""

from __future__ import annotations

from pydantic import Field

from mcpist.modules import Module, OAuth2Auth, ServiceSettings, ToolContext

SCOPE = "https://www.googleapis.com/auth/"

# The least set covering every tool, per the Discovery document's `scopes` of each method called:
#   calendar.events                  events: list, get, instances, insert, patch, delete, move, quickAdd
#   calendar.calendars               calendars: get (a calendar's time zone), insert, delete
#   calendar.calendarlist.readonly   calendarList.list and colors.get
#   calendar.freebusy                freeBusy.query (find_free_time, the conflict check)
# The broad `calendar` scope would add sharing (ACLs) and subscribing to other calendars, which no tool does.
SCOPES = tuple(
    SCOPE + name
    for name in ("calendar.events", "calendar.calendars", "calendar.calendarlist.readonly", "calendar.freebusy")
)
READ_ONLY_SCOPES = (SCOPE + "calendar.readonly",)  # covers every read-only tool's methods, freeBusy included

REAUTH_HINT = (
    "Google ends refresh tokens after 7 days while the OAuth app's publishing status is 'Testing': in the "
    "Google Cloud console, open Google Auth Platform > Audience and press 'Publish app' (status 'In production'), "
    "then connect again; that token then lasts."
)

DOCS = """\
Calendars are named by id; "primary" is the account's own. Events are named by (calendar_id, event_id).
Times: `YYYY-MM-DD` is a whole day; `YYYY-MM-DDTHH:MM` is a local time in `time_zone` (default: the \
calendar's zone); RFC 3339 with an offset (`2026-03-08T09:00:00-05:00`) is an exact instant. An all-day \
event's `end` is its LAST day, inclusive, in results as in arguments. Results show times with their offset \
and the zone's name. A local time that a DST change skips or repeats is refused with the choices.
- Read: list_events(time_min, time_max) expands recurring events into occurrences; search_events(query) \
across calendars; get_event for attendees, description, reminders.
- Write: create_event (attendees, meet=true for a Google Meet link, reminders, recurrence RRULE lines, \
conflicts="refuse" to check free/busy first), quick_add_event("Lunch with Ann tomorrow 12:30"), \
update_event (start alone moves an event and keeps its length), move_event, respond_to_event.
- Recurring: an occurrence's id comes from list_events (recurring_event_id names its series). update_event \
and delete_event take scope: "this" occurrence, "following" (splits the series there) or "all".
- Free time: find_free_time over several calendars and several accounts (`accounts`), within working \
hours. Lists take `limit` and return `next_cursor`: pass it back as `cursor` with the same arguments."""


class GoogleCalendarSettings(ServiceSettings):
    """`[modules.settings.google_calendar]` in mcpist.toml."""

    base_url: str = Field(
        default="https://www.googleapis.com/calendar/v3", description="the Google Calendar API v3 root"
    )


module = Module(
    "google_calendar",
    summary="Google Calendar events, recurrences, invites, free time",
    description=(
        "Read and change Google Calendar with your own Google accounts: list and search events in any time zone, "
        "create events with attendees, Google Meet links, reminders and recurrence, edit one occurrence, the "
        "following ones or a whole series, answer invitations, and find free time across calendars and accounts."
    ),
    settings=GoogleCalendarSettings,
    # OAuth with the user's own Google Cloud app (`mcpist app register google_calendar`, then
    # `mcpist account connect google_calendar`), or a bare access token (`account add ... --token-stdin`)
    auth=OAuth2Auth(
        authorize_url="https://accounts.google.com/o/oauth2/v2/auth",
        token_url="https://oauth2.googleapis.com/token",  # noqa: S106 - a URL, not a password
        scopes=SCOPES,
        read_only_scopes=READ_ONLY_SCOPES,
        # offline + consent: Google sends a refresh token only then, and again on each new consent
        authorize_params={"access_type": "offline", "prompt": "consent", "include_granted_scopes": "true"},
        reauth_hint=REAUTH_HINT,
        pkce=True,
    ),
    docs=DOCS,
)

Ctx = ToolContext[GoogleCalendarSettings]
