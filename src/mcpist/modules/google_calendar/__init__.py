"""Module `google_calendar`: events, recurring series, invitations and free time on Google Calendar.

Every time goes through `_times`: a day is a day (an all-day end is the last day, inclusive, both ways), a
local time is read in the caller's or the calendar's zone with DST gaps and overlaps refused, and results carry
their offset and zone. Accounts: OAuth with the user's own Google Cloud app (refresh tokens, read-only
scopes for read-only accounts), or a bare access token.
"""

from . import _calendars, _freebusy, _read, _recurring, _write  # noqa: F401  (each registers its tools on `module`)
from ._module import GoogleCalendarSettings, module

__all__ = ["GoogleCalendarSettings", "module"]
