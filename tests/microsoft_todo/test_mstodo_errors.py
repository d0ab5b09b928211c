"""Graph's errors as MCPist errors: throttling with Retry-After, refresh on a 401, denied scopes, missing things,
Graph's own message (without the token), and no retry of a write that may have happened."""

from __future__ import annotations

import pytest
from mstodo_harness import Harness
from mstodo_world import World, graph_error

from mcpist.modules import Conflict, InvalidArgument, NotFound, PermissionDenied, Unauthenticated, Unavailable
from mcpist.testing import FakeCredentials, covers

pytestmark = pytest.mark.anyio

LISTS = "GET /me/todo/lists"
TASKS = "/me/todo/lists/{todoTaskList-id}/tasks"


@covers("list_task_lists")
async def test_throttling_is_waited_out_as_graph_asks(todo: Harness, world: World) -> None:
    world.fail(LISTS, graph_error(429, "TooManyRequests", "Please retry after 7 seconds.", {"Retry-After": "7"}))
    page = await todo.call("list_task_lists")
    assert [item["name"] for item in page["items"]] == ["Tasks"]
    assert len(todo.sent(LISTS)) == 2 and todo.sleep.waits == [7.0]


@covers("list_task_lists")
async def test_throttling_that_lasts_is_unavailable_with_the_wait(todo: Harness, world: World) -> None:
    for _ in range(3):
        world.fail(
            LISTS,
            graph_error(429, "TooManyRequests", "Too many requests.", {"Retry-After": "30", "request-id": "req-9"}),
        )
    with pytest.raises(Unavailable, match="microsoft_todo is rate limiting requests; retry in 30 s") as caught:
        await todo.call("list_task_lists")
    assert caught.value.data == {"service": "microsoft_todo", "status": 429, "retry_after_s": 30, "request_id": "req-9"}


@covers("list_task_lists")
async def test_a_401_refreshes_once_then_a_dead_credential_is_unauthenticated(todo: Harness, world: World) -> None:
    todo.credentials = FakeCredentials("stale", "fresh")
    world.fail(LISTS, graph_error(401, "InvalidAuthenticationToken", "Access token has expired."))
    await todo.call("list_task_lists")
    assert len(todo.sent(LISTS)) == 2 and todo.sent(LISTS)[-1].headers["authorization"] == "Bearer fresh"
    assert todo.credentials.refreshes == 1
    world.fail(LISTS, graph_error(401, "InvalidAuthenticationToken", "Access token has expired."))
    with pytest.raises(Unauthenticated, match="connect it again"):
        await todo.call("list_task_lists")


@covers("create_task")
async def test_a_read_only_grant_is_permission_denied(todo: Harness, world: World) -> None:
    world.fail(
        f"POST {TASKS}", graph_error(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
    )
    with pytest.raises(PermissionDenied, match="microsoft_todo denied access: Access is denied"):
        await todo.call("create_task", list_id=next(iter(world.lists)), title="x")


@covers("get_task")
async def test_missing_things_name_what_was_missing(todo: Harness, world: World) -> None:
    with pytest.raises(NotFound, match="task AAMkADnone= in list AAMkADlist1AAA= not found") as caught:
        await todo.call("get_task", list_id=next(iter(world.lists)), task_id="AAMkADnone=")
    assert caught.value.data["status"] == 404 and "or the account cannot see it" in caught.value.message


@covers("update_task")
async def test_graphs_own_message_surfaces_without_the_token(todo: Harness, world: World) -> None:
    todo.credentials = FakeCredentials("EwB4A8l6BAAU-secret")
    tasks = next(iter(world.lists))
    task_id = world.add_task(tasks, "x")
    said = "Bad token EwB4A8l6BAAU-secret in 'title'."
    world.fail(f"PATCH {TASKS}/{{todoTask-id}}", graph_error(400, "invalidRequest", said))
    with pytest.raises(InvalidArgument, match=r"microsoft_todo: Bad token \[redacted\] in 'title'.") as caught:
        await todo.call("update_task", list_id=tasks, task_id=task_id, title="y")
    assert "EwB4A8l6BAAU" not in repr(caught.value)
    world.fail(f"PATCH {TASKS}/{{todoTask-id}}", graph_error(409, "conflict", "The item was changed."))
    with pytest.raises(Conflict, match=r"microsoft_todo: The item was changed\."):
        await todo.call("update_task", list_id=tasks, task_id=task_id, title="y")


@covers("create_task", "list_tasks")
async def test_a_create_is_not_retried_but_a_read_is(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    world.fail(f"POST {TASKS}", graph_error(503, "serviceNotAvailable", "Service unavailable."))
    with pytest.raises(Unavailable, match=r"microsoft_todo is unavailable \(HTTP 503\): Service unavailable."):
        await todo.call("create_task", list_id=tasks, title="once")
    assert len(todo.sent(f"POST {TASKS}")) == 1 and world.tasks[tasks] == {}
    world.fail(f"GET {TASKS}", graph_error(503, "serviceNotAvailable", "Service unavailable."))
    assert (await todo.call("list_tasks", list_id=tasks))["items"] == []
    assert len(todo.sent(f"GET {TASKS}")) == 2
