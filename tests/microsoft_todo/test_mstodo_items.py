"""Checklist steps and linked resources: several edits in one call, in a fixed order, and a clear partial failure."""

from __future__ import annotations

from typing import Any

import pytest
from mstodo_harness import Harness
from mstodo_world import World, graph_error

from mcpist.modules import InvalidArgument, NotFound, Unavailable
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

ITEMS = "/me/todo/lists/{todoTaskList-id}/tasks/{todoTask-id}/checklistItems"
ITEM = ITEMS + "/{checklistItem-id}"
LINKS = "/me/todo/lists/{todoTaskList-id}/tasks/{todoTask-id}/linkedResources"
LINK = LINKS + "/{linkedResource-id}"


def task_with_steps(world: World, *titles: str) -> tuple[str, str, dict[str, Any]]:
    tasks = next(iter(world.lists))
    task_id = world.add_task(tasks, "Trip")
    steps = world.task(tasks, task_id)
    assert steps is not None
    for n, title in enumerate(titles, 1):
        steps["_checklist"][f"ci{n}"] = {"id": f"ci{n}", "displayName": title, "isChecked": n == 2}
    return tasks, task_id, steps["_checklist"]


@covers("manage_checklist_items")
async def test_one_call_adds_renames_checks_unchecks_and_deletes(todo: Harness, world: World) -> None:
    tasks, task_id, steps = task_with_steps(world, "Passport", "Tickets", "Charger", "Old step")
    result = await todo.call(
        "manage_checklist_items",
        list_id=tasks,
        task_id=task_id,
        add=["Sunscreen", "Adapter"],
        update=[{"id": "ci3", "title": "Phone charger", "checked": True}],
        check=["ci1"],
        uncheck=["ci2"],
        delete=["ci4"],
    )
    sent = [(r.method, r.operation, r.path.rsplit("/", 1)[-1], r.json) for r in todo.fake.requests]
    assert sent == [
        ("DELETE", f"DELETE {ITEM}", "ci4", None),
        ("PATCH", f"PATCH {ITEM}", "ci3", {"displayName": "Phone charger", "isChecked": True}),
        ("PATCH", f"PATCH {ITEM}", "ci1", {"isChecked": True}),
        ("PATCH", f"PATCH {ITEM}", "ci2", {"isChecked": False}),
        ("POST", f"POST {ITEMS}", "checklistItems", {"displayName": "Sunscreen"}),
        ("POST", f"POST {ITEMS}", "checklistItems", {"displayName": "Adapter"}),
        ("GET", f"GET {ITEMS}", "checklistItems", None),
    ]
    new_ids = [i for i in steps if i not in ("ci1", "ci2", "ci3")]
    assert result["done"] == [
        "deleted ci4",
        "updated ci3",
        "checked ci1",
        "unchecked ci2",
        f"added 'Sunscreen' as {new_ids[0]}",
        f"added 'Adapter' as {new_ids[1]}",
    ]
    assert [(i["title"], i["checked"]) for i in result["items"]] == [
        ("Passport", True),
        ("Tickets", False),
        ("Phone charger", True),
        ("Sunscreen", False),
        ("Adapter", False),
    ]
    assert result["items"][0]["checked_at"] == "2026-03-09T10:00:00Z" and "checked_at" not in result["items"][1]


@covers("manage_checklist_items")
async def test_an_item_named_twice_or_nothing_to_do_is_refused(todo: Harness, world: World) -> None:
    tasks, task_id, _ = task_with_steps(world, "a")
    with pytest.raises(InvalidArgument, match=r"item ci1 is named twice \(check and delete\)") as caught:
        await todo.call("manage_checklist_items", list_id=tasks, task_id=task_id, check=["ci1"], delete=["ci1"])
    assert caught.value.data["field"] == "delete"
    with pytest.raises(InvalidArgument, match="nothing to do"):
        await todo.call("manage_checklist_items", list_id=tasks, task_id=task_id)
    with pytest.raises(InvalidArgument, match="update of item ci1 changes nothing"):
        await todo.call("manage_checklist_items", list_id=tasks, task_id=task_id, update=[{"id": "ci1"}])
    with pytest.raises(InvalidArgument, match="51 edits in one call; at most 50"):
        await todo.call(
            "manage_checklist_items", list_id=tasks, task_id=task_id, add=["x"] * 30, check=[f"c{n}" for n in range(21)]
        )
    assert todo.fake.requests == []


@covers("manage_checklist_items")
async def test_a_failing_edit_says_what_was_already_made(todo: Harness, world: World) -> None:
    tasks, task_id, steps = task_with_steps(world, "a", "b")
    with pytest.raises(NotFound, match=r"already made: deleted ci1; nothing after it") as caught:
        await todo.call(
            "manage_checklist_items", list_id=tasks, task_id=task_id, delete=["ci1"], check=["ci9"], add=["c"]
        )
    assert caught.value.data["done"] == ["deleted ci1"] and caught.value.data["status"] == 404
    assert "or one of its checklist items" in caught.value.message
    assert list(steps) == ["ci2"] and todo.fake.requests[-1].method == "PATCH"  # "c" was never added
    world.fail(f"POST {ITEMS}", graph_error(503, "serviceNotAvailable", "Try again later."))
    with pytest.raises(Unavailable, match=r"already made: unchecked ci2; nothing after it"):
        await todo.call("manage_checklist_items", list_id=tasks, task_id=task_id, uncheck=["ci2"], add=["c"])


@covers("manage_linked_resources")
async def test_linked_resources_added_changed_and_removed(todo: Harness, world: World) -> None:
    tasks, task_id, _ = task_with_steps(world)
    task = world.task(tasks, task_id)
    assert task is not None
    task["_linked"]["lr1"] = {"id": "lr1", "webUrl": "https://old.example/1", "displayName": "Old"}
    task["_linked"]["lr2"] = {"id": "lr2", "webUrl": "https://gone.example/2", "displayName": "Gone"}
    result = await todo.call(
        "manage_linked_resources",
        list_id=tasks,
        task_id=task_id,
        add=[
            {
                "url": "https://github.com/acme/app/issues/7",
                "title": "Issue 7",
                "application": "GitHub",
                "external_id": "7",
            }
        ],
        update=[{"id": "lr1", "title": "Renamed"}],
        delete=["lr2"],
    )
    sent = [(r.operation, r.json) for r in todo.fake.requests]
    assert sent == [
        (f"DELETE {LINK}", None),
        (f"PATCH {LINK}", {"displayName": "Renamed"}),
        (
            f"POST {LINKS}",
            {
                "webUrl": "https://github.com/acme/app/issues/7",
                "displayName": "Issue 7",
                "applicationName": "GitHub",
                "externalId": "7",
            },
        ),
        (f"GET {LINKS}", None),
    ]
    assert [(r["id"], r.get("title"), r.get("application")) for r in result["items"]] == [
        ("lr1", "Renamed", None),
        (result["items"][1]["id"], "Issue 7", "GitHub"),
    ]
    assert result["done"][:2] == ["deleted lr2", "updated lr1"]
    assert result["done"][2].startswith("added https://github.com/acme/app/issues/7 as lr-")


@covers("manage_linked_resources")
async def test_a_link_is_checked_before_anything_is_sent(todo: Harness, world: World) -> None:
    tasks, task_id, _ = task_with_steps(world)
    with pytest.raises(InvalidArgument, match=r"add\.0\.url"):
        await todo.call(
            "manage_linked_resources",
            list_id=tasks,
            task_id=task_id,
            add=[{"url": "javascript:alert(1)", "title": "x"}],
        )
    with pytest.raises(InvalidArgument, match="update of link lr1 changes nothing"):
        await todo.call("manage_linked_resources", list_id=tasks, task_id=task_id, update=[{"id": "lr1"}])
    with pytest.raises(InvalidArgument, match=r"item lr1 is named twice \(update and delete\)"):
        await todo.call(
            "manage_linked_resources",
            list_id=tasks,
            task_id=task_id,
            update=[{"id": "lr1", "title": "t"}],
            delete=["lr1"],
        )
    assert todo.fake.requests == []
