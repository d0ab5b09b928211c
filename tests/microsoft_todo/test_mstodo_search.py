"""search_tasks: words in titles, notes and categories across lists, by a scan bounded per call."""

from __future__ import annotations

import pytest
from mstodo_harness import Harness
from mstodo_world import World

from mcpist.modules import InvalidArgument
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

TASKS = "GET /me/todo/lists/{todoTaskList-id}/tasks"


@covers("search_tasks")
async def test_words_are_found_in_titles_bodies_and_categories_across_lists(todo: Harness, world: World) -> None:
    default = next(iter(world.lists))
    home = world.add_list("Home")
    world.add_task(default, "Renew PASSPORT photo")
    world.add_task(default, "Unrelated")
    world.add_task(
        home, "Errand", body={"content": "<p>Bring the <b>passport</b> to the Straße office</p>", "contentType": "html"}
    )
    world.add_task(home, "Trip", categories=["Passport things"])
    world.add_task(home, "Old passport", status="completed")
    found = await todo.call("search_tasks", query="passport")
    assert [(t["title"], t["list_name"], t["matched"]) for t in found["items"]] == [
        ("Renew PASSPORT photo", "Tasks", ["title"]),
        ("Errand", "Home", ["body"]),
        ("Trip", "Home", ["categories"]),
    ]
    assert found["scanned"] == 4 and "next_cursor" not in found
    scans = todo.sent(TASKS)
    assert [r.path.split("/")[4] for r in scans] == [default, home]
    assert scans[0].params == {
        "$top": "100",
        "$select": scans[0].params["$select"],
        "$filter": "status ne 'completed'",
    }
    both = await todo.call("search_tasks", query="STRASSE passport", list_id=home, include_completed=True)
    assert [t["title"] for t in both["items"]] == ["Errand"] and both["scanned"] == 3
    assert "$filter" not in todo.last.params and "list_name" not in both["items"][0]


@covers("search_tasks")
async def test_the_scan_is_bounded_and_a_cursor_goes_on_without_repeats(todo: Harness, world: World) -> None:
    default = next(iter(world.lists))
    other = world.add_list("Other")
    for n in range(120):
        world.add_task(default, f"task {n:03}" + (" needle" if n % 40 == 39 else ""))
    for n in range(30):
        world.add_task(other, f"other {n:02}" + (" needle" if n == 5 else ""))
    first = await todo.call("search_tasks", query="needle", max_scanned=50)
    assert [t["title"] for t in first["items"]] == ["task 039 needle"] and first["scanned"] == 50
    assert first["next_cursor"] and "scanned 50 tasks without finishing" in first["notes"][0]
    titles, cursor, calls = [t["title"] for t in first["items"]], first["next_cursor"], 1
    while cursor:
        page = await todo.call("search_tasks", query="needle", max_scanned=50, cursor=cursor)
        titles += [t["title"] for t in page["items"]]
        cursor, calls = page.get("next_cursor"), calls + 1
    assert titles == ["task 039 needle", "task 079 needle", "task 119 needle", "other 05 needle"]
    assert calls == 3  # 150 tasks, 50 a call


@covers("search_tasks")
async def test_limit_stops_inside_a_page_and_the_cursor_resumes_after_the_last_hit(todo: Harness, world: World) -> None:
    default = next(iter(world.lists))
    for n in range(6):
        world.add_task(default, f"hit {n}")
    first = await todo.call("search_tasks", query="hit", limit=4)
    assert [t["title"] for t in first["items"]] == ["hit 0", "hit 1", "hit 2", "hit 3"] and first["scanned"] == 4
    assert first["notes"] == []
    rest = await todo.call("search_tasks", query="hit", limit=4, cursor=first["next_cursor"])
    assert [t["title"] for t in rest["items"]] == ["hit 4", "hit 5"] and "next_cursor" not in rest


@covers("search_tasks")
async def test_a_bad_query_or_cursor_is_refused(todo: Harness) -> None:
    with pytest.raises(InvalidArgument, match="`query` holds no words"):
        await todo.call("search_tasks", query="   ")
    with pytest.raises(InvalidArgument, match="cursor"):
        await todo.call("search_tasks", query="x", cursor="garbage")
    assert todo.fake.requests == []
