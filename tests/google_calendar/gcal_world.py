"""A small Google Calendar behind `FakeUpstream`, checked against tests/vendor_specs/google_calendar.json.

It keeps calendars and events (series masters and their occurrences stored side by side, as Google returns
them), answers freeBusy per account (by bearer token), pages with `pageToken`, and answers errors in Google's
shape: `{"error": {"code", "message", "errors": [{"domain", "reason", "message"}]}}`.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx

from mcpist.testing import FakeUpstream

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "google_calendar.json"
BASE = "https://www.googleapis.com/calendar/v3"
ME = "me@example.com"
MEET = "https://meet.google.com/abc-defg-hij"
STAMP = "2026-03-01T12:00:00.000Z"


def google_error(status: int, message: str, reason: str) -> tuple[int, dict[str, Any]]:
    return status, {
        "error": {
            "code": status,
            "message": message,
            "errors": [{"domain": "global", "reason": reason, "message": message}],
        }
    }


def when(text: str, tz: str | None = None) -> dict[str, str]:
    if len(text) == 10:
        return {"date": text}
    return {"dateTime": text, **({"timeZone": tz} if tz else {})}


def event(event_id: str, summary: str, start: str, end: str, tz: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "calendar#event",
        "id": event_id,
        "status": "confirmed",
        "summary": summary,
        "start": when(start, tz),
        "end": when(end, tz),
        "htmlLink": f"https://www.google.com/calendar/event?eid={event_id}",
        "organizer": {"email": ME, "self": True},
        "created": STAMP,
        "updated": STAMP,
        **extra,
    }


def instant(raw: dict[str, str], tz: ZoneInfo) -> datetime:
    if "date" in raw:
        return datetime.combine(date.fromisoformat(raw["date"]), time(), tz).astimezone(UTC)
    moment = datetime.fromisoformat(raw["dateTime"])
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(raw.get("timeZone", tz.key)))
    return moment.astimezone(UTC)


class World:
    """What the handlers serve; tests arrange it and read `fake.requests` for what the tools sent."""

    def __init__(self) -> None:
        self.calendars: dict[str, dict[str, Any]] = {
            ME: {"id": ME, "summary": ME, "timeZone": "America/New_York", "accessRole": "owner", "primary": True},
            "team@group.calendar.google.com": {
                "id": "team@group.calendar.google.com",
                "summary": "Team",
                "timeZone": "Europe/Berlin",
                "accessRole": "writer",
            },
            "tokyo@group.calendar.google.com": {
                "id": "tokyo@group.calendar.google.com",
                "summary": "Tokyo office",
                "timeZone": "Asia/Tokyo",
                "accessRole": "reader",
            },
        }
        self.events: dict[str, dict[str, dict[str, Any]]] = {cid: {} for cid in self.calendars}
        self.busy: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.changes: list[dict[str, Any]] = []
        self.errors: dict[str, tuple[int, dict[str, Any]]] = {}  # by id, or "METHOD id" for one method
        self.created = 0
        self.page_cap: dict[str, int] = {}  # Google may answer fewer items than maxResults, and more pages

    def cal(self, calendar_id: str) -> str:
        return ME if calendar_id == "primary" else calendar_id

    def add(self, calendar_id: str, *events: dict[str, Any]) -> None:
        for raw in events:
            self.events[self.cal(calendar_id)][raw["id"]] = raw

    def stored(self, calendar_id: str, event_id: str) -> dict[str, Any]:
        return self.events[self.cal(calendar_id)][event_id]

    def install(self, fake: FakeUpstream) -> None:
        def missing(what: str) -> tuple[int, dict[str, Any]]:
            return google_error(404, "Not Found", "notFound")

        def calendar_or_error(calendar_id: str) -> tuple[int, dict[str, Any]] | None:
            if calendar_id in self.errors:
                return self.errors[calendar_id]
            return None if self.cal(calendar_id) in self.calendars else missing(calendar_id)

        def paged(
            request: httpx.Request, items: list[Any], default: int, cap: int | None = None
        ) -> tuple[list[Any], str | None]:
            at = int(request.url.params.get("pageToken") or 0)
            size = min(int(request.url.params.get("maxResults") or default), cap or 2500)
            page = items[at : at + size]
            return page, str(at + size) if at + size < len(items) else None

        @fake.route("GET", "/users/me/calendarList")
        def _calendar_list(request: httpx.Request) -> Any:
            entries = list(self.calendars.values())
            wanted = request.url.params.get("minAccessRole")
            if wanted == "writer":
                entries = [c for c in entries if c["accessRole"] in ("owner", "writer")]
            page, following = paged(request, entries, 100)
            reply: dict[str, Any] = {"kind": "calendar#calendarList", "items": page}
            if following:
                reply["nextPageToken"] = following
            return reply

        @fake.route("GET", "/calendars/{calendarId}")
        def _calendar(request: httpx.Request, calendarId: str) -> Any:
            refused = calendar_or_error(calendarId)
            if refused:
                return refused
            found = self.calendars[self.cal(calendarId)]
            return {
                "kind": "calendar#calendar",
                "id": found["id"],
                "summary": found["summary"],
                "timeZone": found["timeZone"],
            }

        @fake.route("POST", "/calendars")
        def _create_calendar(request: httpx.Request) -> Any:
            body = json.loads(request.content)
            self.created += 1
            new_id = f"new{self.created}@group.calendar.google.com"
            self.calendars[new_id] = {"id": new_id, "accessRole": "owner", "timeZone": "UTC", **body}
            self.events[new_id] = {}
            return {"kind": "calendar#calendar", "etag": '"1"', "timeZone": "UTC", **body, "id": new_id}

        @fake.route("DELETE", "/calendars/{calendarId}")
        def _delete_calendar(request: httpx.Request, calendarId: str) -> Any:
            refused = calendar_or_error(calendarId)
            if refused:
                return refused
            del self.calendars[calendarId]
            return 204, None

        @fake.route("GET", "/colors")
        def _colors(request: httpx.Request) -> Any:
            return {
                "kind": "calendar#colors",
                "updated": STAMP,
                "calendar": {"1": {"background": "#ac725e", "foreground": "#1d1d1d"}},
                "event": {
                    "1": {"background": "#a4bdfc", "foreground": "#1d1d1d"},
                    "11": {"background": "#dc2127", "foreground": "#1d1d1d"},
                },
            }

        def listing(request: httpx.Request, calendar_id: str, of_series: str | None) -> Any:
            refused = calendar_or_error(calendar_id)
            if refused:
                return refused
            params = request.url.params
            calendar = self.calendars[self.cal(calendar_id)]
            tz = ZoneInfo(calendar["timeZone"])
            if params.get("syncToken"):
                if params["syncToken"] == "expired":
                    return google_error(
                        410, "Sync token is no longer valid, a full sync is required.", "fullSyncRequired"
                    )
                return {
                    "kind": "calendar#events",
                    "timeZone": calendar["timeZone"],
                    "items": self.changes,
                    "nextSyncToken": "sync-2",
                }
            items = list(self.events[self.cal(calendar_id)].values())
            if of_series is not None:
                items = [e for e in items if e.get("recurringEventId") == of_series]
            elif params.get("singleEvents") == "true":
                items = [e for e in items if "recurrence" not in e]
            else:
                items = [e for e in items if "recurringEventId" not in e]
            if params.get("showDeleted") != "true":
                items = [e for e in items if e.get("status") != "cancelled"]
            if params.get("q"):
                q = params["q"].lower()
                items = [
                    e
                    for e in items
                    if q in json.dumps([e.get("summary"), e.get("description"), e.get("location")]).lower()
                ]
            if params.get("timeMin"):
                low = datetime.fromisoformat(params["timeMin"])
                items = [e for e in items if "end" not in e or instant(e["end"], tz) > low]
            if params.get("timeMax"):
                high = datetime.fromisoformat(params["timeMax"])
                items = [e for e in items if "start" not in e or instant(e["start"], tz) < high]
            if params.get("orderBy") == "startTime":
                if params.get("singleEvents") != "true" and of_series is None:
                    return google_error(
                        400, "The requested ordering is not available for the particular query.", "invalid"
                    )
                items.sort(key=lambda e: instant(e["start"], tz))
            page, following = paged(request, items, 250, self.page_cap.get(self.cal(calendar_id)))
            reply: dict[str, Any] = {
                "kind": "calendar#events",
                "summary": calendar["summary"],
                "timeZone": calendar["timeZone"],
                "items": page,
            }
            if following:
                reply["nextPageToken"] = following
            elif of_series is None:
                reply["nextSyncToken"] = "sync-1"
            return reply

        @fake.route("GET", "/calendars/{calendarId}/events")
        def _list(request: httpx.Request, calendarId: str) -> Any:
            return listing(request, calendarId, None)

        @fake.route("GET", "/calendars/{calendarId}/events/{eventId}/instances")
        def _instances(request: httpx.Request, calendarId: str, eventId: str) -> Any:
            if eventId not in self.events.get(self.cal(calendarId), {}):
                return missing(eventId)
            return listing(request, calendarId, eventId)

        def find(calendar_id: str, event_id: str, method: str = "GET") -> dict[str, Any] | tuple[int, dict[str, Any]]:
            for key in (f"{method} {event_id}", event_id):
                if key in self.errors:
                    return self.errors[key]
            refused = calendar_or_error(calendar_id)
            if refused:
                return refused
            found = self.events[self.cal(calendar_id)].get(event_id)
            return found if found is not None else missing(event_id)

        @fake.route("GET", "/calendars/{calendarId}/events/{eventId}")
        def _get(request: httpx.Request, calendarId: str, eventId: str) -> Any:
            return find(calendarId, eventId)

        def stored(calendar_id: str, raw: dict[str, Any], meet: bool) -> dict[str, Any]:
            ask = (raw.get("conferenceData") or {}).get("createRequest")
            if ask is not None:
                if meet:
                    raw["conferenceData"] = {
                        "createRequest": {**ask, "status": {"statusCode": "success"}},
                        "entryPoints": [
                            {"entryPointType": "video", "uri": MEET, "label": "meet.google.com/abc-defg-hij"}
                        ],
                        "conferenceSolution": {"key": {"type": "hangoutsMeet"}, "name": "Google Meet"},
                        "conferenceId": "abc-defg-hij",
                    }
                    raw["hangoutLink"] = MEET
                else:  # without conferenceDataVersion=1 Google drops the request
                    raw.pop("conferenceData")
            for person in raw.get("attendees") or []:
                person.setdefault("responseStatus", "needsAction")
            return raw

        @fake.route("POST", "/calendars/{calendarId}/events")
        def _insert(request: httpx.Request, calendarId: str) -> Any:
            refused = calendar_or_error(calendarId)
            if refused:
                return refused
            self.created += 1
            new_id = f"new{self.created}"
            body = json.loads(request.content)
            raw = event(new_id, body.get("summary", ""), "2000-01-01", "2000-01-02")
            raw.update(body)
            raw["id"] = new_id
            meet = request.url.params.get("conferenceDataVersion") == "1"
            self.add(calendarId, stored(calendarId, raw, meet))
            return raw

        @fake.route("PATCH", "/calendars/{calendarId}/events/{eventId}")
        def _patch(request: httpx.Request, calendarId: str, eventId: str) -> Any:
            found = find(calendarId, eventId, "PATCH")
            if isinstance(found, tuple):
                return found
            found.update(json.loads(request.content))
            found["updated"] = "2026-03-02T12:00:00.000Z"
            return stored(calendarId, found, request.url.params.get("conferenceDataVersion") == "1")

        @fake.route("DELETE", "/calendars/{calendarId}/events/{eventId}")
        def _delete(request: httpx.Request, calendarId: str, eventId: str) -> Any:
            found = find(calendarId, eventId, "DELETE")
            if isinstance(found, tuple):
                return found
            if found.get("status") == "cancelled":
                return google_error(410, "Resource has been deleted", "deleted")
            found["status"] = "cancelled"
            return 204, None

        @fake.route("POST", "/calendars/{calendarId}/events/{eventId}/move")
        def _move(request: httpx.Request, calendarId: str, eventId: str) -> Any:
            found = find(calendarId, eventId)
            if isinstance(found, tuple):
                return found
            target = request.url.params["destination"]
            if self.cal(target) not in self.calendars:
                return missing(target)
            del self.events[self.cal(calendarId)][eventId]
            self.add(target, found)
            return found

        @fake.route("POST", "/calendars/{calendarId}/events/quickAdd")
        def _quick(request: httpx.Request, calendarId: str) -> Any:
            self.created += 1
            raw = event(
                f"quick{self.created}",
                request.url.params["text"].split(" tomorrow")[0],
                "2026-03-10T12:30:00-04:00",
                "2026-03-10T13:30:00-04:00",
                "America/New_York",
            )
            self.add(calendarId, raw)
            return raw

        @fake.route("POST", "/freeBusy")
        def _freebusy(request: httpx.Request) -> Any:
            body = json.loads(request.content)
            token = request.headers.get("Authorization", "").removeprefix("Bearer ")
            low, high = datetime.fromisoformat(body["timeMin"]), datetime.fromisoformat(body["timeMax"])
            out: dict[str, Any] = {}
            for item in body["items"]:
                periods = self.busy.get((token, item["id"]))
                if periods is None:
                    out[item["id"]] = {"errors": [{"domain": "global", "reason": "notFound"}], "busy": []}
                    continue
                out[item["id"]] = {
                    "busy": [
                        {"start": s, "end": e}
                        for s, e in periods
                        if datetime.fromisoformat(e) > low and datetime.fromisoformat(s) < high
                    ]
                }
            return {
                "kind": "calendar#freeBusy",
                "timeMin": body["timeMin"],
                "timeMax": body["timeMax"],
                "calendars": out,
            }


def fake_upstream(base_url: str = BASE) -> FakeUpstream:
    return FakeUpstream.from_file(SPEC, base_url=base_url)
