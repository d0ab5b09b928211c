"""A small Jira behind `FakeUpstream` (checked against tests/vendor_specs/jira.json) plus Jira Software's agile
API on a plain `httpx.MockTransport`, since the platform description does not cover it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from mcpist.testing import FakeUpstream

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "jira.json"
SITE = "https://acme.atlassian.net"
WHEN = "2026-03-01T12:00:00.000+00:00"  # the spec checks RFC 3339
DESCRIPTION = {
    "type": "doc",
    "version": 1,
    "content": [
        {"type": "heading", "attrs": {"level": 2}, "content": [{"type": "text", "text": "手順"}]},
        {
            "type": "paragraph",
            "content": [
                {"type": "text", "text": "Ask "},
                {"type": "mention", "attrs": {"id": "5b10ac8d", "text": "@Alice"}},
                {"type": "text", "text": " about ", "marks": []},
                {"type": "text", "text": "the crash", "marks": [{"type": "strong"}]},
            ],
        },
        {"type": "panel", "attrs": {"panelType": "info"}, "content": [{"type": "paragraph"}]},
    ],
}


def person(name: str = "Alice", account_id: str = "5b10ac8d") -> dict[str, Any]:
    return {"accountId": account_id, "displayName": name, "active": True, "emailAddress": f"{name.lower()}@acme.test"}


def issue(number: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": str(10000 + number),
        "key": f"PROJ-{number}",
        "self": f"{SITE}/rest/api/3/issue/{10000 + number}",
        "fields": {
            "summary": f"Issue {number}",
            "status": {"name": "To Do", "statusCategory": {"key": "new", "name": "To Do"}},
            "issuetype": {"id": "10001", "name": "Task"},
            "priority": {"name": "Medium"},
            "assignee": person(),
            "updated": WHEN,
            **fields,
        },
    }


class World:
    """What the handlers serve, and what the tools sent."""

    def __init__(self, issues: int = 75) -> None:
        self.issues = [issue(n) for n in range(1, issues + 1)]
        self.comments = [
            {
                "id": str(100 + i),
                "author": person("Bob", "b0b"),
                "created": WHEN,
                "updated": WHEN,
                "body": {
                    "type": "doc",
                    "version": 1,
                    "content": [{"type": "paragraph", "content": [{"type": "text", "text": f"Comment {i}"}]}],
                },
            }
            for i in range(25)
        ]
        self.agile: list[httpx.Request] = []

    def install(self, fake: FakeUpstream) -> None:
        rest = "/rest/api/3"

        @fake.route("GET", f"{rest}/myself")
        def _myself(request: httpx.Request) -> Any:
            return {**person("Me", "me-1"), "timeZone": "Asia/Tokyo"}

        @fake.route("POST", f"{rest}/search/jql")
        def _search(request: httpx.Request) -> Any:
            body = json.loads(request.content)
            if body["jql"] == "bad":
                return 400, {"errorMessages": ["Error in the JQL Query: 'bad' is not a field."], "errors": {}}
            start = int(body.get("nextPageToken") or 0)
            size = min(int(body.get("maxResults", 50)), 40)  # Jira lowers big pages
            page = self.issues[start : start + size]
            more = start + size < len(self.issues)
            reply: dict[str, Any] = {"issues": page, "isLast": not more}
            if more:
                reply["nextPageToken"] = str(start + size)
            return reply

        @fake.route("GET", f"{rest}/issue/{{issueIdOrKey}}")
        def _issue(request: httpx.Request, issueIdOrKey: str) -> Any:
            if issueIdOrKey == "PROJ-404":
                return 404, {"errorMessages": ["Issue does not exist or you do not have permission to see it."]}
            found = issue(
                7,
                description=DESCRIPTION,
                reporter=person("Bob", "b0b"),
                created=WHEN,
                labels=["ui"],
                project={"key": "PROJ"},
                customfield_10016=5,
                attachment=[
                    {
                        "id": "900",
                        "filename": "log.txt",
                        "size": 12,
                        "mimeType": "text/plain",
                        "created": WHEN,
                        "author": person(),
                        "content": f"{SITE}/rest/api/3/attachment/content/900",
                    }
                ],
            )
            return found

        @fake.route("GET", f"{rest}/issue/{{issueIdOrKey}}/comment")
        def _comments(request: httpx.Request, issueIdOrKey: str) -> Any:
            start, size = int(request.url.params["startAt"]), int(request.url.params["maxResults"])
            return {
                "startAt": start,
                "maxResults": size,
                "total": len(self.comments),
                "comments": self.comments[start : start + size],
            }

        @fake.route("GET", f"{rest}/issue/{{issueIdOrKey}}/changelog")
        def _changelog(request: httpx.Request, issueIdOrKey: str) -> Any:
            entry = {
                "id": "1",
                "author": person(),
                "created": WHEN,
                "items": [{"field": "status", "fromString": "To Do", "toString": "In Progress"}],
            }
            return {"startAt": 0, "maxResults": 50, "total": 1, "isLast": True, "values": [entry]}

        @fake.route("GET", f"{rest}/issue/createmeta/{{projectIdOrKey}}/issuetypes")
        def _types(request: httpx.Request, projectIdOrKey: str) -> Any:
            if projectIdOrKey == "NOPE":
                return 404, {"errorMessages": ["No project could be found with key 'NOPE'."]}
            types = [
                {"id": "10001", "name": "Task", "subtask": False},
                {"id": "10002", "name": "Bug", "subtask": False},
            ]
            return {"startAt": 0, "maxResults": 50, "total": 2, "issueTypes": types}

        @fake.route("GET", f"{rest}/issue/createmeta/{{projectIdOrKey}}/issuetypes/{{issueTypeId}}")
        def _type_fields(request: httpx.Request, projectIdOrKey: str, issueTypeId: str) -> Any:
            fields = [
                {
                    "fieldId": "summary",
                    "key": "summary",
                    "name": "Summary",
                    "required": True,
                    "hasDefaultValue": False,
                    "operations": ["set"],
                },
                {
                    "fieldId": "reporter",
                    "key": "reporter",
                    "name": "Reporter",
                    "required": True,
                    "hasDefaultValue": True,
                    "operations": ["set"],
                },
            ]
            if issueTypeId == "10002":
                fields.append(
                    {
                        "fieldId": "customfield_10100",
                        "key": "customfield_10100",
                        "name": "Severity",
                        "required": True,
                        "hasDefaultValue": False,
                        "operations": ["set"],
                        "allowedValues": [{"value": "S1"}, {"value": "S2"}],
                    }
                )
            return {"startAt": 0, "maxResults": 50, "total": len(fields), "fields": fields}

        @fake.route("POST", f"{rest}/issue")
        def _create(request: httpx.Request) -> Any:
            return 201, {"id": "10100", "key": "PROJ-100", "self": f"{SITE}/rest/api/3/issue/10100"}

        @fake.route("PUT", f"{rest}/issue/{{issueIdOrKey}}")
        def _edit(request: httpx.Request, issueIdOrKey: str) -> Any:
            return 204, {}  # the description documents a JSON body, even for 204

        @fake.route("DELETE", f"{rest}/issue/{{issueIdOrKey}}")
        def _delete(request: httpx.Request, issueIdOrKey: str) -> Any:
            return 204, {}  # the description documents a JSON body, even for 204

        @fake.route("GET", f"{rest}/issue/{{issueIdOrKey}}/transitions")
        def _transitions(request: httpx.Request, issueIdOrKey: str) -> Any:
            return {
                "transitions": [
                    {
                        "id": "11",
                        "name": "Start",
                        "to": {"name": "In Progress", "statusCategory": {"name": "In Progress"}},
                    },
                    {
                        "id": "31",
                        "name": "Finish",
                        "to": {"name": "Done", "statusCategory": {"name": "Done"}},
                        "fields": {"resolution": {"required": True, "name": "Resolution"}},
                    },
                ]
            }

        @fake.route("POST", f"{rest}/issue/{{issueIdOrKey}}/transitions")
        def _transition(request: httpx.Request, issueIdOrKey: str) -> Any:
            return 204, {}  # the description documents a JSON body, even for 204

        @fake.route("POST", f"{rest}/issue/{{issueIdOrKey}}/comment")
        def _comment(request: httpx.Request, issueIdOrKey: str) -> Any:
            return 201, {
                "id": "200",
                "author": person("Me", "me-1"),
                "created": WHEN,
                "body": json.loads(request.content)["body"],
            }

        @fake.route("PUT", f"{rest}/issue/{{issueIdOrKey}}/comment/{{id}}")
        def _edit_comment(request: httpx.Request, issueIdOrKey: str, id: str) -> Any:
            return {
                "id": id,
                "author": person("Me", "me-1"),
                "updated": WHEN,
                "body": json.loads(request.content)["body"],
            }

        @fake.route("PUT", f"{rest}/issue/{{issueIdOrKey}}/assignee")
        def _assign(request: httpx.Request, issueIdOrKey: str) -> Any:
            return 204, {}  # the description documents a JSON body, even for 204

        @fake.route("GET", f"{rest}/project/search")
        def _projects(request: httpx.Request) -> Any:
            values = [{"id": "10000", "key": "PROJ", "name": "Project", "projectTypeKey": "software", "lead": person()}]
            return {"startAt": 0, "maxResults": 50, "total": 1, "isLast": True, "values": values}

        @fake.route("GET", f"{rest}/field")
        def _fields(request: httpx.Request) -> Any:
            return [
                {
                    "id": "summary",
                    "name": "Summary",
                    "custom": False,
                    "clauseNames": ["summary"],
                    "schema": {"type": "string"},
                },
                {
                    "id": "customfield_10016",
                    "name": "Story Points",
                    "custom": True,
                    "clauseNames": ["cf[10016]"],
                    "schema": {"type": "number"},
                },
            ]

        @fake.route("GET", f"{rest}/user/search")
        def _users(request: httpx.Request) -> Any:
            return [person(), person("Alicia", "a2")]

        @fake.route("GET", f"{rest}/issue/{{issueIdOrKey}}/worklog")
        def _worklogs(request: httpx.Request, issueIdOrKey: str) -> Any:
            log = {"id": "300", "author": person(), "started": WHEN, "timeSpent": "1h", "timeSpentSeconds": 3600}
            return {"startAt": 0, "maxResults": 50, "total": 1, "worklogs": [log]}

        @fake.route("POST", f"{rest}/issue/{{issueIdOrKey}}/worklog")
        def _add_worklog(request: httpx.Request, issueIdOrKey: str) -> Any:
            body = json.loads(request.content)
            return 201, {
                "id": "301",
                "author": person("Me", "me-1"),
                "started": body.get("started", WHEN),
                "timeSpent": body["timeSpent"],
                "timeSpentSeconds": 5400,
                "comment": body.get("comment"),
            }

        @fake.route("POST", f"{rest}/issueLink")
        def _link(request: httpx.Request) -> Any:
            return 201, {}

    def agile_handler(self, request: httpx.Request) -> httpx.Response:
        """GET /rest/agile/1.0/board, GET /board/{id}/sprint and POST /sprint/{id}/issue, as Atlassian documents."""
        self.agile.append(request)
        path = request.url.path.split("/rest/agile/1.0", 1)[1]
        if request.method == "GET" and path == "/board":
            boards = [{"id": 1, "name": "PROJ board", "type": "scrum", "location": {"projectKey": "PROJ"}}]
            return httpx.Response(
                200, json={"startAt": 0, "maxResults": 50, "total": 1, "isLast": True, "values": boards}
            )
        if request.method == "GET" and path == "/board/1/sprint":
            sprint = {
                "id": 5,
                "name": "Sprint 5",
                "state": "active",
                "originBoardId": 1,
                "startDate": WHEN,
                "goal": "ship",
            }
            return httpx.Response(200, json={"startAt": 0, "maxResults": 50, "isLast": True, "values": [sprint]})
        if request.method == "POST" and path == "/sprint/5/issue":
            return httpx.Response(204)
        return httpx.Response(404, json={"errorMessages": ["Sprint not found"]})


class Routed(httpx.AsyncBaseTransport):
    """The platform API to the fake, Jira Software's agile API (outside the description) to its handler."""

    def __init__(self, api: httpx.AsyncBaseTransport, agile: httpx.AsyncBaseTransport) -> None:
        self.api, self.agile = api, agile

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        target = self.agile if "/rest/agile/1.0/" in request.url.path else self.api
        return await target.handle_async_request(request)


def fake_upstream(base_url: str = SITE) -> FakeUpstream:
    return FakeUpstream.from_file(SPEC, base_url=base_url)
