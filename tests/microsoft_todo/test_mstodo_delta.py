"""get_task_changes: a full first sync, then only changes (removed ids too) across calls, behind one sync_token."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mstodo_harness import Harness
from mstodo_world import World, fake_upstream

from mcpist.modules import InvalidArgument
from mcpist.testing import FakeUpstream, covers
from mcpist.upstream import encode_cursor

pytestmark = pytest.mark.anyio

DELTA = "GET /me/todo/lists/{todoTaskList-id}/tasks/microsoft.graph.delta()"


@pytest.fixture
def api(world: World) -> Iterator[FakeUpstream]:
    # Graph's next and delta links carry $skiptoken and $deltatoken, which the CSDL-derived description omits
    fake = fake_upstream(allow_unknown_query=True)
    world.install(fake)
    with fake:
        yield fake


@covers("get_task_changes", "create_task", "update_task", "delete_task")
async def test_a_first_sync_then_changes_with_removed_ids(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    ids = [world.add_task(tasks, f"t{n}") for n in range(5)]
    first = await todo.call("get_task_changes", list_id=tasks)
    assert [t["title"] for t in first["changed"]] == ["t0", "t1", "t2", "t3", "t4"]
    assert first["removed"] == [] and first["has_more"] is False
    calls = todo.sent(DELTA)
    assert calls[0].params == {} and [r.params for r in calls[1:]] == [{"$skiptoken": "s0-2"}, {"$skiptoken": "s0-4"}]
    assert all(r.headers["prefer"] == 'outlook.timezone="UTC"' for r in calls)

    await todo.call("update_task", list_id=tasks, task_id=ids[1], title="t1 renamed")
    await todo.call("delete_task", list_id=tasks, task_id=ids[3])
    added = await todo.call("create_task", list_id=tasks, title="t5", due_date="2026-03-08", time_zone="Asia/Tokyo")
    second = await todo.call("get_task_changes", list_id=tasks, sync_token=first["sync_token"], time_zone="Asia/Tokyo")
    assert [t["title"] for t in second["changed"]] == ["t1 renamed", "t5"]
    assert second["changed"][1]["due_date"] == "2026-03-08" and second["changed"][1]["id"] == added["id"]
    assert second["removed"] == [ids[3]] and second["has_more"] is False
    assert todo.sent(DELTA)[3].params == {"$deltatoken": "d5"}

    third = await todo.call("get_task_changes", list_id=tasks, sync_token=second["sync_token"])
    assert third["changed"] == [] and third["removed"] == [] and third["has_more"] is False


@covers("get_task_changes")
async def test_a_limit_hands_out_the_round_in_parts(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    for n in range(5):
        world.add_task(tasks, f"t{n}")
    part = await todo.call("get_task_changes", list_id=tasks, limit=3)
    assert [t["title"] for t in part["changed"]] == ["t0", "t1", "t2"] and part["has_more"] is True
    rest = await todo.call("get_task_changes", list_id=tasks, limit=3, sync_token=part["sync_token"])
    assert [t["title"] for t in rest["changed"]] == ["t3", "t4"] and rest["has_more"] is False
    world.add_task(tasks, "t5")
    after = await todo.call("get_task_changes", list_id=tasks, sync_token=rest["sync_token"])
    assert [t["title"] for t in after["changed"]] == ["t5"]


@covers("get_task_changes")
async def test_an_expired_token_says_to_start_over(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    world.add_task(tasks, "t0")
    first = await todo.call("get_task_changes", list_id=tasks)
    world.expired_tokens.add("d1")
    with pytest.raises(InvalidArgument, match="the sync_token has expired") as caught:
        await todo.call("get_task_changes", list_id=tasks, sync_token=first["sync_token"])
    assert "without sync_token to start over" in caught.value.message
    assert caught.value.data["field"] == "sync_token" and caught.value.data["expired"] is True
    assert caught.value.data["status"] == 410
    again = await todo.call("get_task_changes", list_id=tasks)
    assert [t["title"] for t in again["changed"]] == ["t0"]


@covers("get_task_changes")
async def test_a_token_from_elsewhere_is_refused_before_it_is_followed(todo: Harness, world: World) -> None:
    tasks = next(iter(world.lists))
    other = world.add_list("Other")
    mine = await todo.call("get_task_changes", list_id=other)
    requests = len(todo.fake.requests)
    with pytest.raises(InvalidArgument, match="`sync_token` belongs to another list"):
        await todo.call("get_task_changes", list_id=tasks, sync_token=mine["sync_token"])
    mail = encode_cursor({"p": "https://graph.microsoft.com/v1.0/me/messages/delta()", "k": 0})
    with pytest.raises(InvalidArgument, match="`sync_token` is not one this tool returned"):
        await todo.call("get_task_changes", list_id=tasks, sync_token=mail)
    elsewhere = encode_cursor({"p": "https://evil.example/v1.0/me/todo/lists/x/tasks/delta()", "k": 0})
    with pytest.raises(InvalidArgument, match="`sync_token` is not one this tool returned"):
        await todo.call("get_task_changes", list_id=tasks, sync_token=elsewhere)
    with pytest.raises(InvalidArgument, match="`sync_token` is not one this tool returned") as caught:
        await todo.call("get_task_changes", list_id=tasks, sync_token="garbled")
    assert caught.value.data["field"] == "sync_token"
    assert len(todo.fake.requests) == requests
