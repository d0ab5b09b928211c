"""Task lists: pages of lists, create, rename, delete (the default list refused by Graph)."""

from __future__ import annotations

import pytest
from mstodo_harness import Harness
from mstodo_world import World

from mcpist.modules import InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("list_task_lists")
async def test_lists_come_in_pages(todo: Harness, world: World) -> None:
    for n in range(59):
        world.add_list(f"List {n:02}")
    first = await todo.call("list_task_lists", limit=50)
    assert len(first["items"]) == 50 and first["next_cursor"]
    assert first["items"][0] == {
        "id": next(iter(world.lists)),
        "name": "Tasks",
        "default": True,
        "kind": "defaultList",
        "is_owner": True,
        "is_shared": False,
    }
    assert todo.last.params == {"$top": "50"} and todo.last.path == "/me/todo/lists"
    rest = await todo.call("list_task_lists", limit=50, cursor=first["next_cursor"])
    assert [item["name"] for item in rest["items"]] == [f"List {n:02}" for n in range(49, 59)]
    assert "next_cursor" not in rest and todo.last.params == {"$top": "50", "$skip": "50"}


@covers("create_task_list", "rename_task_list", "delete_task_list")
async def test_create_rename_delete(todo: Harness, world: World) -> None:
    made = await todo.call("create_task_list", name="Groceries")
    assert todo.last.json == {"displayName": "Groceries"} and todo.last.method == "POST"
    assert made["name"] == "Groceries" and made["default"] is False and made["id"] in world.lists
    renamed = await todo.call("rename_task_list", list_id=made["id"], name="Shopping")
    assert todo.last.method == "PATCH" and todo.last.path == f"/me/todo/lists/{made['id']}"
    assert todo.last.json == {"displayName": "Shopping"} and renamed["name"] == "Shopping"
    gone = await todo.call("delete_task_list", list_id=made["id"])
    assert gone == {"id": made["id"], "done": "deleted the list and its tasks"} and made["id"] not in world.lists
    with pytest.raises(NotFound, match=f"list {made['id']} not found, or the account cannot see it"):
        await todo.call("rename_task_list", list_id=made["id"], name="x")


@covers("delete_task_list")
async def test_graph_refuses_to_delete_the_default_list(todo: Harness, world: World) -> None:
    with pytest.raises(InvalidArgument, match=r"microsoft_todo: The default list cannot be deleted\."):
        await todo.call("delete_task_list", list_id=next(iter(world.lists)))


@covers("create_task_list")
async def test_a_list_name_is_checked(todo: Harness) -> None:
    with pytest.raises(InvalidArgument, match="name"):
        await todo.call("create_task_list", name="")
    with pytest.raises(InvalidArgument, match="name"):
        await todo.call("create_task_list", name="x" * 256)
    assert todo.fake.requests == []
