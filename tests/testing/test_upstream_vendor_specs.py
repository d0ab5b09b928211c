"""FakeUpstream against the real vendor descriptions (tests/vendor_specs, copied from shared/vendor-specs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpist.testing import FakeUpstream

SPECS = Path(__file__).resolve().parents[1] / "vendor_specs"


ISSUE = {
    "id": 1,
    "number": 7,
    "title": "Crash on start",
    "state": "open",
    "user": {"login": "octocat", "id": 1},
    "labels": [{"name": "bug"}, "triage"],
    "milestone": None,
    "html_url": "https://github.com/o/r/issues/7",
}


def github() -> FakeUpstream:
    fake = FakeUpstream.from_file(SPECS / "github.json", base_url="https://api.github.com")

    @fake.route("GET", "/repos/{owner}/{repo}/issues")
    def list_issues(request: httpx.Request, owner: str, repo: str) -> list[dict[str, Any]]:
        return [ISSUE]

    @fake.route("POST", "/repos/{owner}/{repo}/issues")
    def create_issue(request: httpx.Request, owner: str, repo: str) -> tuple[int, dict[str, Any]]:
        return 201, ISSUE

    return fake


def test_github_list_issues() -> None:
    fake = github()
    with fake, httpx.Client(transport=fake.transport(), base_url="https://api.github.com") as http:
        response = http.get("/repos/octo/hello/issues", params={"state": "open", "per_page": 50})
    assert response.json() == [ISSUE]
    assert fake.requests[0].operation == "GET /repos/{owner}/{repo}/issues"


def test_github_create_issue_without_title_is_refused() -> None:
    fake = github()
    with httpx.Client(transport=fake.transport(), base_url="https://api.github.com") as http:
        assert http.post("/repos/octo/hello/issues", json={"title": "Crash", "labels": ["bug"]}).status_code == 201
        assert http.post("/repos/octo/hello/issues", json={"body": "no title"}).status_code == 599
        assert http.get("/repos/octo/hello/issues", params={"state": "opened"}).status_code == 599
    assert [v.kind for v in fake.violations] == ["invalid request", "invalid request"]
    assert "'title' is a required property" in str(fake.violations[0])
    assert "'opened' is not one of ['open', 'closed', 'all']" in str(fake.violations[1])


def test_github_canned_replies_are_checked() -> None:
    fake = FakeUpstream.from_file(SPECS / "github.json")
    fake.route("GET", "/repos/{owner}/{repo}/issues")(lambda request, owner, repo: [{**ISSUE, "number": "7"}])
    with httpx.Client(transport=fake.transport()) as http:
        http.get("https://api.github.com/repos/octo/hello/issues")
    assert [v.problems for v in fake.violations] == [("response[0].number: '7' is not of type 'integer'",)]


def test_github_is_compiled_once_for_many_fakes() -> None:
    fakes = [FakeUpstream.from_file(SPECS / "github.json") for _ in range(30)]
    assert all(fake._api is fakes[0]._api for fake in fakes)
    assert len({id(fake.requests) for fake in fakes}) == 30


def test_google_calendar_events_list() -> None:
    fake = FakeUpstream.from_file(SPECS / "google_calendar.json")

    @fake.route("GET", "/calendars/{calendarId}/events")
    def list_events(request: httpx.Request, calendarId: str) -> dict[str, Any]:
        return {"kind": "calendar#events", "items": [{"id": "e1", "summary": calendarId}]}

    with httpx.Client(transport=fake.transport(), base_url="https://www.googleapis.com/calendar/v3") as http:
        ok = http.get("/calendars/primary/events", params={"timeMin": "2024-05-01T00:00:00Z", "singleEvents": "true"})
        naive = http.get("/calendars/primary/events", params={"timeMin": "2024-05-01T00:00:00"})
    assert ok.json()["items"][0]["summary"] == "primary"
    assert naive.status_code == 599
    assert len(fake.violations) == 1 and "query parameter 'timeMin'" in str(fake.violations[0])


def test_msgraph_todo_lists() -> None:
    fake = FakeUpstream.from_file(SPECS / "msgraph_todo.json", base_url="https://graph.microsoft.com/v1.0")
    fake.route("GET", "/me/todo/lists")(lambda request: {"value": [{"id": "l1", "displayName": "Tasks"}]})
    with fake, httpx.Client(transport=fake.transport(), base_url="https://graph.microsoft.com/v1.0") as http:
        response = http.get("/me/todo/lists", params={"$top": 10, "$select": "id,displayName"})
    assert response.json()["value"][0]["id"] == "l1"


@pytest.mark.parametrize(
    ("name", "base_url"),
    [
        ("notion.json", None),
        ("jira.json", "https://example.atlassian.net"),
        ("confluence.json", "https://example.atlassian.net/wiki/api/v2"),
        ("confluence_v1_search.json", "https://example.atlassian.net"),
        ("supabase.json", None),
        ("supabase_storage.json", None),
    ],
)
def test_every_description_loads(name: str, base_url: str | None) -> None:
    assert FakeUpstream.from_file(SPECS / name, base_url=base_url).operations
