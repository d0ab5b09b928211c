"""FakeUpstream against a small inline OpenAPI description: what it accepts, what it refuses and how it says so."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest

import mcpist.testing
from mcpist.testing import FakeUpstream

BASE = "https://api.example.com/v2"

TASK = {
    "type": "object",
    "required": ["id", "title"],
    "properties": {
        "id": {"type": "integer"},
        "title": {"type": "string"},
        "done": {"type": "boolean"},
        "due": {"type": "string", "format": "date", "nullable": True},
    },
}
LIST_ID = {"name": "list_id", "in": "path", "required": True, "schema": {"type": "integer"}}
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Tasks API", "version": "2"},
    "servers": [{"url": BASE}],
    "paths": {
        "/lists/{list_id}/tasks": {
            "parameters": [LIST_ID],
            "get": {
                "parameters": [
                    {"name": "state", "in": "query", "schema": {"type": "string", "enum": ["open", "done"]}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": {"type": "array", "items": TASK}}},
                    }
                },
            },
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["title"],
                                "properties": {
                                    "title": {"type": "string"},
                                    "due": {"type": "string", "format": "date"},
                                    "tags": {"type": "array", "items": {"type": "string"}},
                                },
                            }
                        }
                    },
                },
                "responses": {"201": {"description": "created", "content": {"application/json": {"schema": TASK}}}},
            },
        },
        "/lists/{list_id}/tasks/{task_id}": {
            "parameters": [LIST_ID, {"name": "task_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": TASK}}}}},
            "delete": {
                "parameters": [{"name": "If-Match", "in": "header", "required": True, "schema": {"type": "string"}}],
                "responses": {"204": {"description": "gone"}},
            },
        },
        "/lists/{list_id}/tasks/summary": {
            "parameters": [LIST_ID],
            "get": {"responses": {"200": {"description": "ok"}}},
        },
        "/search": {
            "get": {
                "parameters": [{"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/files/{path}": {
            "get": {
                "parameters": [{"name": "path", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
}


def client(fake: FakeUpstream) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url=BASE)


def only_violation(fake: FakeUpstream) -> str:
    assert len(fake.violations) == 1, fake.violations
    return str(fake.violations[0])


@pytest.fixture
def fake() -> FakeUpstream:
    fake = FakeUpstream(SPEC)

    @fake.route("GET", "/lists/{list_id}/tasks")
    def list_tasks(request: httpx.Request, list_id: str) -> list[dict[str, Any]]:
        return [{"id": 1, "title": f"in {list_id}", "due": None}]

    @fake.route("POST", "/lists/{list_id}/tasks")
    def create_task(request: httpx.Request, list_id: str) -> tuple[int, dict[str, Any]]:
        return 201, {"id": 2, "title": json.loads(request.content)["title"]}

    @fake.route("GET", "/lists/{list_id}/tasks/{task_id}")
    def get_task(request: httpx.Request, list_id: str, task_id: str) -> dict[str, Any]:
        return {"id": int(task_id), "title": "one"}

    @fake.route("DELETE", "/lists/{list_id}/tasks/{task_id}")
    def delete_task(request: httpx.Request, list_id: str, task_id: str) -> tuple[int, None]:
        return 204, None

    @fake.route("GET", "/lists/{list_id}/tasks/summary")
    def summary(request: httpx.Request, list_id: str) -> dict[str, Any]:
        return {"summary": list_id}

    return fake


def test_a_valid_request_reaches_the_handler_and_is_recorded(fake: FakeUpstream) -> None:
    with fake, client(fake) as http:
        response = http.get("/lists/7/tasks", params={"state": "open", "limit": 5})
    assert response.status_code == 200
    assert response.json() == [{"id": 1, "title": "in 7", "due": None}]
    (seen,) = fake.requests
    assert (seen.method, seen.path, seen.params, seen.json) == (
        "GET",
        "/lists/7/tasks",
        {"state": "open", "limit": "5"},
        None,
    )
    assert seen.operation == "GET /lists/{list_id}/tasks"


def test_a_valid_body_is_recorded_as_json(fake: FakeUpstream) -> None:
    with fake, client(fake) as http:
        response = http.post("/lists/7/tasks", json={"title": "buy milk", "tags": ["home"]})
    assert response.status_code == 201
    assert fake.requests[0].json == {"title": "buy milk", "tags": ["home"]}


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "expected"),
    [
        ("PUT", "/lists/7/tasks", {}, "PUT is not documented for this path (documented: GET, POST)"),
        ("GET", "/list/7/tasks", {}, "closest documented: GET /lists/{list_id}/tasks"),
        ("GET", "/lists/seven/tasks", {}, "path parameter 'list_id'"),
        ("GET", "/lists/7/tasks", {"params": {"state": "closed"}}, "query parameter 'state': 'closed' is not one of"),
        ("GET", "/lists/7/tasks", {"params": {"limit": 0}}, "query parameter 'limit'"),
        (
            "GET",
            "/lists/7/tasks",
            {"params": {"sort": "due"}},
            "unknown query parameter 'sort' (documented: limit, state)",
        ),
        ("GET", "/search", {}, "missing required query parameter 'q'"),
        ("POST", "/lists/7/tasks", {"json": {"title": 5}}, "body.title: 5 is not of type 'string'"),
        ("POST", "/lists/7/tasks", {"json": {"due": "2024-01-01"}}, "body: 'title' is a required property"),
        (
            "POST",
            "/lists/7/tasks",
            {"json": {"title": "x", "tags": "home"}},
            "body.tags: 'home' is not of type 'array'",
        ),
        ("POST", "/lists/7/tasks", {}, "body: missing; the operation requires one"),
        ("POST", "/lists/7/tasks", {"content": b"title=x"}, "body"),
        ("GET", "/lists/7/tasks/1", {"json": {"x": 1}}, "body: the operation documents no request body"),
        ("DELETE", "/lists/7/tasks/1", {}, "missing required header parameter 'If-Match'"),
    ],
)
def test_an_invalid_request_is_refused_with_599_and_recorded(
    fake: FakeUpstream, method: str, path: str, kwargs: dict[str, Any], expected: str
) -> None:
    with client(fake) as http:
        response = http.request(method, path, **kwargs)
    assert response.status_code == 599
    assert expected in only_violation(fake)
    assert expected in response.json()["fake_upstream"]
    assert len(fake.requests) == 1


def test_a_documented_header_is_accepted(fake: FakeUpstream) -> None:
    with fake, client(fake) as http:
        assert http.delete("/lists/7/tasks/1", headers={"If-Match": "v1"}).status_code == 204


def test_unknown_query_parameters_may_be_allowed() -> None:
    fake = FakeUpstream(SPEC, allow_unknown_query=True)
    fake.route("GET", "/lists/{list_id}/tasks")(lambda request, list_id: [])
    with fake, client(fake) as http:
        assert http.get("/lists/7/tasks", params={"sort": "due"}).status_code == 200


def test_a_literal_segment_wins_over_a_path_parameter(fake: FakeUpstream) -> None:
    with fake, client(fake) as http:
        assert http.get("/lists/7/tasks/summary").json() == {"summary": "7"}
        assert http.get("/lists/7/tasks/3").json() == {"id": 3, "title": "one"}


def test_a_documented_operation_without_a_handler_is_reported(fake: FakeUpstream) -> None:
    with client(fake) as http:
        response = http.get("/search", params={"q": "milk"})
    assert response.status_code == 404
    assert only_violation(fake) == "unhandled: GET /search"
    with pytest.raises(AssertionError, match=r"1 violation\(s\) of Tasks API:\n  - unhandled: GET /search"):
        fake.assert_clean()


def test_the_context_manager_asserts_on_exit(fake: FakeUpstream) -> None:
    with pytest.raises(AssertionError, match="unhandled: GET /search"), fake, client(fake) as http:
        http.get("/search", params={"q": "milk"})


def test_route_refuses_an_undocumented_operation(fake: FakeUpstream) -> None:
    with pytest.raises(ValueError, match=r"documents no GET /list/\{list_id\}/tasks; closest documented: GET /lists"):
        fake.route("GET", "/list/{list_id}/tasks")
    with pytest.raises(ValueError, match=r"/lists/\{list_id\}/tasks documents GET, POST"):
        fake.route("PATCH", "/lists/{list_id}/tasks")
    with pytest.raises(ValueError, match="already has a handler"):
        fake.route("GET", "/lists/{list_id}/tasks")
    with pytest.raises(ValueError, match=r"must take \(request, list_id\)"):
        FakeUpstream(SPEC).route("GET", "/lists/{list_id}/tasks")(lambda request: [])


def test_requests_outside_the_base_url_are_refused(fake: FakeUpstream) -> None:
    with httpx.Client(transport=fake.transport()) as http:
        assert http.get("https://api.example.com/lists/7/tasks").status_code == 599
        assert http.get("https://other.example.com/v2/lists/7/tasks").status_code == 599
        assert http.get("https://api.example.com/v2x/lists/7/tasks").status_code == 599
    assert [v.problems for v in fake.violations] == [(f"not under base_url {BASE}",)] * 3


def test_base_url_defaults_to_the_first_server_and_may_be_overridden() -> None:
    fake = FakeUpstream(SPEC, base_url="http://localhost:8080/api/")
    fake.route("GET", "search")(lambda request: {"hits": []})
    with fake, httpx.Client(transport=fake.transport()) as http:
        assert http.get("http://localhost:8080/api/search?q=x").json() == {"hits": []}
    with pytest.raises(ValueError, match="pass base_url"):
        FakeUpstream({**SPEC, "servers": [{"url": "/v2"}]})


@pytest.mark.anyio
async def test_async_and_sync_handlers_serve_an_async_client(fake: FakeUpstream) -> None:
    @fake.route("GET", "/search")
    async def search(request: httpx.Request) -> dict[str, Any]:
        return {"q": request.url.params["q"]}

    async with httpx.AsyncClient(transport=fake.transport(), base_url=BASE) as http:
        assert (await http.get("/search", params={"q": "milk"})).json() == {"q": "milk"}
        assert (await http.get("/lists/7/tasks/3")).json() == {"id": 3, "title": "one"}
        assert (await http.get("/search")).status_code == 599
    assert "missing required query parameter 'q'" in only_violation(fake)


def test_an_async_handler_under_a_sync_client_is_reported(fake: FakeUpstream) -> None:
    @fake.route("GET", "/search")
    async def search(request: httpx.Request) -> dict[str, Any]:
        return {}

    with client(fake) as http:
        assert http.get("/search", params={"q": "x"}).status_code == 599
    assert "async handler used with a sync httpx.Client" in only_violation(fake)


def test_tuple_replies_carry_status_body_and_headers() -> None:
    fake = FakeUpstream(SPEC, validate_responses=False)
    fake.route("GET", "/search")(lambda request: (200, "plain", {"X-Total": "3"}))
    fake.route("GET", "/files/{path}")(lambda request, path: (200, path.encode()))
    fake.route("GET", "/lists/{list_id}/tasks/summary")(lambda request, list_id: httpx.Response(202, text="ok"))
    with fake, client(fake) as http:
        response = http.get("/search", params={"q": "x"})
        assert (response.status_code, response.text, response.headers["x-total"]) == (200, "plain", "3")
        assert http.get("/files/a%2Fb.txt").content == b"a/b.txt"
        assert http.get("/lists/7/tasks/summary").status_code == 202


def test_a_handler_reply_of_the_wrong_kind_is_reported() -> None:
    fake = FakeUpstream(SPEC)
    fake.route("GET", "/search")(lambda request: "not a reply")  # type: ignore[type-var]
    with client(fake) as http:
        assert http.get("/search", params={"q": "x"}).status_code == 599
    assert "handler error: GET /search" in only_violation(fake)


def test_a_handler_exception_is_reported_but_a_transport_error_passes_through() -> None:
    fake = FakeUpstream(SPEC)

    @fake.route("GET", "/search")
    def search(request: httpx.Request) -> dict[str, Any]:
        if request.url.params["q"] == "down":
            raise httpx.ConnectError("simulated outage", request=request)
        raise KeyError("oops")

    with client(fake) as http:
        assert http.get("/search", params={"q": "x"}).status_code == 599
        with pytest.raises(httpx.ConnectError, match="simulated outage"):
            http.get("/search", params={"q": "down"})
    assert "KeyError: 'oops'" in only_violation(fake)


def test_slash_params_let_a_path_parameter_span_segments() -> None:
    fake = FakeUpstream(SPEC)
    with client(fake) as http:
        assert http.get("/files/docs/a.txt").status_code == 599
    assert "if path in /files/{path} may hold '/', pass slash_params={'path'}" in only_violation(fake)

    fake = FakeUpstream(SPEC, slash_params={"path"})
    fake.route("GET", "/files/{path}")(lambda request, path: (200, path))
    with fake, client(fake) as http:
        assert http.get("/files/docs/a.txt").text == "docs/a.txt"


def test_replies_are_checked_against_the_documented_response() -> None:
    fake = FakeUpstream(SPEC)
    replies: dict[str, Any] = {}
    fake.route("GET", "/lists/{list_id}/tasks/{task_id}")(lambda request, list_id, task_id: replies[task_id])
    replies.update(
        {"1": {"id": "one"}, "2": {"title": "partial"}, "3": (201, {"id": 3, "title": "x"}), "4": (503, "down")}
    )
    with client(fake) as http:
        for task_id in replies:
            http.get(f"/lists/7/tasks/{task_id}")
    assert [str(v).splitlines()[1].strip() for v in fake.violations] == [
        "response.id: 'one' is not of type 'integer'",
        "response: status 201 is not documented (documented: 200)",
    ]


@pytest.mark.parametrize(("mode", "expected"), [("strict", ["response: 'id' is a required property"]), (False, [])])
def test_strict_replies_need_every_required_field_and_checking_can_be_off(
    mode: Literal["strict"] | bool, expected: list[str]
) -> None:
    fake = FakeUpstream(SPEC, validate_responses=mode)
    fake.route("GET", "/lists/{list_id}/tasks/{task_id}")(lambda request, list_id, task_id: {"title": "x"})
    with client(fake) as http:
        http.get("/lists/7/tasks/1")
    assert [problem for v in fake.violations for problem in v.problems] == expected


def test_nullable_without_a_type_means_or_null() -> None:
    # OAS 3.0 gives `nullable` no effect without a sibling `type`; GitHub writes it to mean "or null" all the same
    schema = {
        "type": "object",
        "properties": {"milestone": {"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": True}},
    }
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Issues", "version": "1"},
        "paths": {
            "/issues/{number}": {
                "parameters": [{"name": "number", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "patch": {
                    "requestBody": {"content": {"application/json": {"schema": schema}}},
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}},
                },
                "head": {
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}
                },
            }
        },
    }
    fake = FakeUpstream(spec, base_url="https://issues.example.com")
    fake.route("PATCH", "/issues/{number}")(lambda request, number: {"milestone": None})
    fake.route("HEAD", "/issues/{number}")(lambda request, number: (200, None))
    with httpx.Client(transport=fake.transport(), base_url="https://issues.example.com") as http:
        assert http.patch("/issues/1", json={"milestone": None}).status_code == 200
        assert http.patch("/issues/1", json={"milestone": 1.5}).status_code == 599
        assert http.head("/issues/1").status_code == 200
    assert "body.milestone: 1.5 is not valid under any of the given schemas" in only_violation(fake)


def test_path_parameters_that_are_not_identifiers_become_keyword_arguments() -> None:
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Objects", "version": "1"},
        "paths": {
            "/lists/{todoTaskList-id}/objects/{*}": {
                "get": {
                    "parameters": [
                        {"name": "todoTaskList-id", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "*", "in": "path", "required": True, "schema": {"type": "string"}},
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    fake = FakeUpstream(spec, base_url="https://objects.example.com")

    @fake.route("GET", "/lists/{todoTaskList-id}/objects/{*}")
    def get_object(request: httpx.Request, todoTaskList_id: str, wildcard: str) -> dict[str, Any]:
        return {"list": todoTaskList_id, "object": wildcard}

    with fake, httpx.Client(transport=fake.transport()) as http:
        response = http.get("https://objects.example.com/lists/L1/objects/folder/cat.png")
    assert response.json() == {"list": "L1", "object": "folder/cat.png"}


def test_openapi_31_types_are_understood() -> None:
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Notes", "version": "1"},
        "servers": [{"url": "https://notes.example.com"}],
        "paths": {
            "/notes": {
                "post": {
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {"type": "object", "properties": {"parent": {"type": ["string", "null"]}}}
                            }
                        }
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    fake = FakeUpstream(spec)
    fake.route("POST", "/notes")(lambda request: {})
    with httpx.Client(transport=fake.transport()) as http:
        assert http.post("https://notes.example.com/notes", json={"parent": None}).status_code == 200
        assert http.post("https://notes.example.com/notes", json={"parent": 3}).status_code == 599
    assert "body.parent: 3 is not of type 'string', 'null'" in only_violation(fake)


def test_other_formats_are_refused() -> None:
    with pytest.raises(ValueError, match=r"Swagger 2\.0"):
        FakeUpstream({"swagger": "2.0", "paths": {}})
    with pytest.raises(ValueError, match="not an OpenAPI"):
        FakeUpstream({"paths": {}})
    with pytest.raises(ValueError, match="unsupported OpenAPI version"):
        FakeUpstream({"openapi": "4.0.0", "paths": {}})


def test_a_file_is_compiled_once_until_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(SPEC))
    first, second = FakeUpstream.from_file(path), FakeUpstream.from_file(str(path))
    assert first._api is second._api
    assert first.operations == second.operations and "GET /search" in first.operations
    stat = path.stat()
    path.write_text(json.dumps({**SPEC, "info": {"title": "Tasks API, edited", "version": "3"}}))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert FakeUpstream.from_file(path)._api is not first._api
    (tmp_path / "bad.json").write_text("not json")
    with pytest.raises(ValueError, match="not JSON"):
        FakeUpstream.from_file(tmp_path / "bad.json")


def test_the_package_exports_the_fake() -> None:
    assert {"FakeUpstream", "RecordedRequest", "Violation"} <= set(mcpist.testing.__all__)


def test_the_nulls_and_sparse_variants_give_the_least_the_description_promises(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = {"type": "object", "properties": {"login": {"type": "string"}, "site": {"type": ["string", "null"]}}}
    spec: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Nulls", "version": "1"},
        "servers": [{"url": BASE}],
        "paths": {
            "/things": {
                "get": {
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "array",
                                        "items": {
                                            "allOf": [
                                                {"$ref": "#/components/schemas/Base"},
                                                {"properties": {"owner": owner, "tags": {"type": "array"}}},
                                            ]
                                        },
                                    }
                                }
                            },
                        }
                    }
                }
            }
        },
        "components": {
            "schemas": {
                "Base": {
                    "type": "object",
                    "required": ["id", "note"],
                    "properties": {
                        "id": {"type": "integer"},
                        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    },
                }
            }
        },
    }
    fake = FakeUpstream(spec)
    thing = {"id": 1, "note": "n", "owner": {"login": "ada", "site": "x"}, "tags": ["a"], "extra": "kept"}

    @fake.route("GET", "/things")
    def things(request: httpx.Request) -> list[dict[str, Any]]:
        return [thing]

    with fake, client(fake) as http:
        assert http.get("/things").json() == [thing]  # as written unless asked
        monkeypatch.setenv(mcpist.testing.upstream.VARIANT_ENV, "nulls")
        # a required property that may be null is null too; a property the schema does not know stays
        assert http.get("/things").json() == [
            {"id": 1, "note": None, "owner": {"login": "ada", "site": None}, "tags": ["a"], "extra": "kept"}
        ]
        monkeypatch.setenv(mcpist.testing.upstream.VARIANT_ENV, "sparse")
        # only what the schema requires (nullable ones null); what the schema does not know stays
        assert http.get("/things").json() == [{"id": 1, "note": None, "extra": "kept"}]
