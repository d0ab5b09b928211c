"""FakeUpstream against a small inline Google Discovery document."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mcpist.testing import FakeUpstream

TASKLIST = {"type": "string", "required": True, "location": "path"}
DOC: dict[str, Any] = {
    "discoveryVersion": "v1",
    "name": "tasks",
    "title": "Tasks Discovery",
    "rootUrl": "https://www.example.com/",
    "servicePath": "tasks/v1/",
    "parameters": {
        "fields": {"type": "string", "location": "query"},
        "prettyPrint": {"type": "boolean", "location": "query"},
    },
    "schemas": {
        "Task": {
            "id": "Task",
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "title": {"type": "string", "annotations": {"required": ["tasks.tasks.insert"]}},
                "due": {"type": "string", "format": "date-time"},
                "position": {"type": "integer", "format": "int32"},
                "size": {"type": "string", "format": "int64"},
                "status": {"type": "string", "enum": ["needsAction", "completed"]},
                "links": {"type": "array", "items": {"type": "object", "properties": {"link": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
        "Tasks": {
            "id": "Tasks",
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"$ref": "Task"}}, "nextPageToken": {"type": "string"}},
        },
    },
    "resources": {
        "tasks": {
            "methods": {
                "list": {
                    "id": "tasks.tasks.list",
                    "httpMethod": "GET",
                    "path": "lists/{tasklist}/tasks",
                    "parameters": {
                        "tasklist": TASKLIST,
                        "maxResults": {
                            "type": "integer",
                            "format": "int32",
                            "minimum": "1",
                            "maximum": "100",
                            "location": "query",
                        },
                        "dueMin": {"type": "string", "format": "date-time", "location": "query"},
                        "showCompleted": {"type": "boolean", "location": "query"},
                        "orderBy": {"type": "string", "enum": ["due", "position"], "location": "query"},
                        "label": {"type": "string", "repeated": True, "location": "query"},
                    },
                    "response": {"$ref": "Tasks"},
                },
                "insert": {
                    "id": "tasks.tasks.insert",
                    "httpMethod": "POST",
                    "path": "lists/{tasklist}/tasks",
                    "parameters": {"tasklist": TASKLIST},
                    "request": {"$ref": "Task"},
                    "response": {"$ref": "Task"},
                },
                "move": {
                    "id": "tasks.tasks.move",
                    "httpMethod": "POST",
                    "path": "lists/{tasklist}/tasks/{task}/move",
                    "parameters": {
                        "tasklist": TASKLIST,
                        "task": {"type": "string", "required": True, "location": "path"},
                        "parent": {"type": "string", "required": True, "location": "query"},
                    },
                    "response": {"$ref": "Task"},
                },
            },
            "resources": {
                "operations": {
                    "methods": {
                        "get": {
                            "id": "tasks.operations.get",
                            "httpMethod": "GET",
                            "path": "{+name}",
                            "parameters": {
                                "name": {
                                    "type": "string",
                                    "required": True,
                                    "location": "path",
                                    "pattern": "^operations/.*$",
                                }
                            },
                        }
                    }
                }
            },
        }
    },
}
BASE = "https://www.example.com/tasks/v1/"


@pytest.fixture
def fake() -> FakeUpstream:
    fake = FakeUpstream(DOC)

    @fake.route("GET", "/lists/{tasklist}/tasks")
    def list_tasks(request: httpx.Request, tasklist: str) -> dict[str, Any]:
        return {"items": [{"id": "t1", "title": f"in {tasklist}", "position": 1}]}

    @fake.route("POST", "lists/{tasklist}/tasks")
    def insert(request: httpx.Request, tasklist: str) -> dict[str, Any]:
        return {"id": "t2", "title": "new"}

    @fake.route("POST", "/lists/{tasklist}/tasks/{task}/move")
    def move(request: httpx.Request, tasklist: str, task: str) -> dict[str, Any]:
        return {"id": task}

    @fake.route("GET", "/{+name}")
    def get_operation(request: httpx.Request, name: str) -> dict[str, Any]:
        return {"name": name}

    return fake


def client(fake: FakeUpstream) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url=BASE)


def test_a_valid_list_request_passes(fake: FakeUpstream) -> None:
    params: Any = {
        "dueMin": "2024-05-01T00:00:00+02:00",
        "maxResults": 50,
        "showCompleted": "false",
        "label": ["a", "b"],
        "fields": "items(id)",
    }
    with fake, client(fake) as http:
        response = http.get("lists/%40default/tasks", params=params)
    assert response.json() == {"items": [{"id": "t1", "title": "in @default", "position": 1}]}
    assert fake.requests[0].params["label"] == ["a", "b"]
    assert fake.requests[0].operation == "GET /lists/{tasklist}/tasks"


def test_a_valid_insert_passes(fake: FakeUpstream) -> None:
    body = {"title": "x", "due": "2024-05-01T10:00:00", "position": "3", "size": 12, "labels": {"k": "v"}}
    with fake, client(fake) as http:
        assert http.post("lists/l1/tasks", json=body).json() == {"id": "t2", "title": "new"}


def test_a_reserved_expansion_spans_segments(fake: FakeUpstream) -> None:
    with fake, client(fake) as http:
        assert http.get("operations/abc/def").json() == {"name": "operations/abc/def"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "expected"),
    [
        ("GET", "lists/l1/tasks", {"params": {"dueMin": "2024-05-01T00:00:00"}}, "with a time zone offset"),
        ("GET", "lists/l1/tasks", {"params": {"dueMin": "yesterday"}}, "query parameter 'dueMin'"),
        ("GET", "lists/l1/tasks", {"params": {"maxResults": 0}}, "0 is below the minimum 1"),
        ("GET", "lists/l1/tasks", {"params": {"maxResults": "ten"}}, "'ten' is not an integer"),
        ("GET", "lists/l1/tasks", {"params": {"showCompleted": "yes"}}, "'yes' is not 'true' or 'false'"),
        ("GET", "lists/l1/tasks", {"params": {"orderBy": "title"}}, "'title' is not one of ['due', 'position']"),
        ("GET", "lists/l1/tasks", {"params": {"orderBy": ["due", "due"]}}, "given 2 times but is not repeatable"),
        ("GET", "lists/l1/tasks", {"params": {"sort": "due"}}, "unknown query parameter 'sort'"),
        ("GET", "lists/l1/tasks", {"params": {"prettyPrint": "1"}}, "query parameter 'prettyPrint'"),
        ("DELETE", "lists/l1/tasks", {}, "DELETE is not documented for this path (documented: GET, POST)"),
        ("POST", "list/l1/tasks", {"json": {}}, "closest documented: POST /lists/{tasklist}/tasks"),
        ("POST", "lists/l1/tasks/t1/move", {}, "missing required query parameter 'parent'"),
        ("POST", "lists/l1/tasks/t1/move", {"params": {"parent": "p"}, "json": {}}, "documents no request body"),
        ("POST", "lists/l1/tasks", {}, "body: missing; the method expects a Task body"),
        (
            "POST",
            "lists/l1/tasks",
            {"json": {"due": "2024-05-01T10:00:00Z"}},
            "body: missing required property 'title'",
        ),
        ("POST", "lists/l1/tasks", {"json": {"title": 5}}, "body.title: expected a string, got number"),
        ("POST", "lists/l1/tasks", {"json": {"title": "x", "notes": "n"}}, "body: unknown property 'notes'"),
        (
            "POST",
            "lists/l1/tasks",
            {"json": {"title": "x", "position": "3rd"}},
            "body.position: '3rd' is not an integer",
        ),
        ("POST", "lists/l1/tasks", {"json": {"title": "x", "status": "done"}}, "body.status: 'done' is not one of"),
        (
            "POST",
            "lists/l1/tasks",
            {"json": {"title": "x", "links": [{"url": "u"}]}},
            "body.links[0]: unknown property 'url'",
        ),
        ("POST", "lists/l1/tasks", {"json": {"title": "x", "labels": {"k": 1}}}, "body.labels.k: expected a string"),
        ("POST", "lists/l1/tasks", {"json": {"title": "x", "links": {}}}, "body.links: expected an array, got object"),
        ("POST", "lists/l1/tasks", {"json": ["x"]}, "body: expected an object, got array"),
        (
            "POST",
            "lists/l1/tasks",
            {"content": b"{", "headers": {"content-type": "application/json"}},
            "not valid JSON",
        ),
        ("POST", "lists/l1/tasks", {"content": b"title=x"}, "is not JSON"),
        ("GET", "jobs/abc", {}, "path parameter 'name': 'jobs/abc' does not match"),
    ],
)
def test_an_invalid_request_is_refused(
    fake: FakeUpstream, method: str, path: str, kwargs: dict[str, Any], expected: str
) -> None:
    with client(fake) as http:
        assert http.request(method, path, **kwargs).status_code == 599
    assert len(fake.violations) == 1
    assert expected in str(fake.violations[0])


def test_replies_are_checked_against_the_response_schema() -> None:
    fake = FakeUpstream(DOC)
    fake.route("GET", "/lists/{tasklist}/tasks")(lambda request, tasklist: {"items": [{"title": 5}], "kind": "x"})
    fake.route("POST", "/lists/{tasklist}/tasks")(lambda request, tasklist: (200, "created"))
    with client(fake) as http:
        assert http.get("lists/l1/tasks").status_code == 200
        assert http.post("lists/l1/tasks", json={"title": "x"}).status_code == 200
    assert [v.problems for v in fake.violations] == [
        ("response.items[0].title: expected a string, got number", "response: unknown property 'kind'"),
        ("response: content type 'text/plain; charset=utf-8' is not JSON",),
    ]


def test_route_refuses_an_undocumented_method(fake: FakeUpstream) -> None:
    with pytest.raises(ValueError, match=r"Tasks Discovery documents no GET /lists/\{tasklist\}/task;"):
        fake.route("GET", "/lists/{tasklist}/task")


def test_the_base_url_may_be_given() -> None:
    fake = FakeUpstream(DOC, base_url="http://127.0.0.1:9000/tasks/v1")
    fake.route("POST", "/lists/{tasklist}/tasks/{task}/move")(lambda request, tasklist, task: {})
    with fake, httpx.Client(transport=fake.transport()) as http:
        assert http.post("http://127.0.0.1:9000/tasks/v1/lists/a/tasks/b/move?parent=p").status_code == 200
