"""Tasks: listing with filters and pages, one task in full, create, update, complete or reopen, delete."""

from __future__ import annotations

import pytest
from mstodo_harness import Harness
from mstodo_world import World

from mcpist.modules import InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

TASKS = "/me/todo/lists/{todoTaskList-id}/tasks"
ONE = TASKS + "/{todoTask-id}"
SELECT = (
    "id,title,status,importance,dueDateTime,reminderDateTime,isReminderOn,categories,recurrence,"
    "completedDateTime,createdDateTime,lastModifiedDateTime,body"
)


def default_list(world: World) -> str:
    return next(iter(world.lists))


@covers("list_tasks")
async def test_list_tasks_sends_graphs_filter_order_and_page_size(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    world.add_task(tasks, "low", importance="low")
    world.add_task(tasks, "urgent", importance="high", categories=["Red category"])
    world.add_task(tasks, "done", importance="high", status="completed")
    page = await todo.call(
        "list_tasks", list_id=tasks, importance="high", order_by="title", descending=True, limit=5, time_zone="UTC"
    )
    assert [t["title"] for t in page["items"]] == ["urgent"]
    assert page["items"][0]["categories"] == ["Red category"] and page["items"][0]["list_id"] == tasks
    sent = todo.last
    assert (sent.method, sent.path) == ("GET", f"/me/todo/lists/{tasks}/tasks")
    assert sent.params == {
        "$select": SELECT,
        "$filter": "status ne 'completed' and importance eq 'high'",
        "$orderby": "title desc",
        "$top": "5",
    }
    assert sent.headers["prefer"] == 'outlook.timezone="UTC"' and sent.headers["authorization"] == "Bearer tok"
    done = await todo.call("list_tasks", list_id=tasks, status="completed")
    assert [t["title"] for t in done["items"]] == ["done"] and todo.last.params["$filter"] == "status eq 'completed'"
    every = await todo.call("list_tasks", list_id=tasks, status="any", order_by="due")
    assert len(every["items"]) == 3 and "$filter" not in todo.last.params
    assert todo.last.params["$orderby"] == "dueDateTime/dateTime"


@covers("list_tasks")
async def test_list_tasks_follows_odata_next_links_with_a_cursor(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    for n in range(25):
        world.add_task(tasks, f"task {n:02}")
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await todo.call("list_tasks", list_id=tasks, limit=10, cursor=cursor)
        seen += [t["title"] for t in page["items"]]
        pages += 1
        cursor = page.get("next_cursor")
        if not cursor:
            break
    assert seen == [f"task {n:02}" for n in range(25)] and pages == 3
    follows = [r for r in todo.sent(f"GET {TASKS}") if "$skip" in r.params]
    assert [r.params["$skip"] for r in follows] == ["10", "20"]
    assert all(r.params["$filter"] == "status ne 'completed'" for r in follows)  # the next link keeps the query


@covers("list_tasks")
async def test_a_cursor_inside_a_page_loses_nothing(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    for n in range(8):
        world.add_task(tasks, f"t{n}", dueDateTime={"dateTime": f"2026-03-0{n + 1}T00:00:00", "timeZone": "UTC"})
    first = await todo.call("list_tasks", list_id=tasks, due_from="2026-03-02", due_to="2026-03-07", limit=4)
    assert [t["title"] for t in first["items"]] == ["t1", "t2", "t3", "t4"] and first["next_cursor"]
    rest = await todo.call(
        "list_tasks", list_id=tasks, due_from="2026-03-02", due_to="2026-03-07", limit=4, cursor=first["next_cursor"]
    )
    assert [t["title"] for t in rest["items"]] == ["t5", "t6"] and "next_cursor" not in rest


@covers("list_tasks")
async def test_list_tasks_refuses_bad_ranges_and_foreign_cursors(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    with pytest.raises(InvalidArgument, match="`due_to` 2026-03-01 is before `due_from` 2026-03-02"):
        await todo.call("list_tasks", list_id=tasks, due_from="2026-03-02", due_to="2026-03-01")
    with pytest.raises(InvalidArgument, match="cursor"):
        await todo.call("list_tasks", list_id=tasks, cursor="not-a-cursor")
    from mcpist.upstream import encode_cursor

    elsewhere = encode_cursor({"p": "https://graph.microsoft.com/v1.0/me/messages?$skip=10", "k": 0})
    with pytest.raises(InvalidArgument, match="`cursor` is not one this tool returned"):
        await todo.call("list_tasks", list_id=tasks, cursor=elsewhere)
    with pytest.raises(InvalidArgument, match="list_id"):
        await todo.call("list_tasks", list_id="../../me/messages")
    assert todo.fake.requests == []


@covers("get_task")
async def test_get_task_reads_notes_checklist_and_links(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    html = "<html><head><style>p{}</style></head><body><p>Line one &amp; more</p><div>Line&nbsp;two</div></body></html>"
    task_id = world.add_task(tasks, "Flagged mail", body={"content": html, "contentType": "html"})
    task = world.task(tasks, task_id)
    assert task is not None
    task["_checklist"]["ci1"] = {
        "id": "ci1",
        "displayName": "Reply",
        "isChecked": True,
        "checkedDateTime": "2026-03-02T10:00:00Z",
    }
    task["_linked"]["lr1"] = {
        "id": "lr1",
        "webUrl": "https://outlook.office.com/mail/id/1",
        "displayName": "The mail",
        "applicationName": "Outlook",
    }
    found = await todo.call("get_task", list_id=tasks, task_id=task_id)
    assert todo.last.params == {"$expand": "checklistItems,linkedResources"}
    assert todo.last.path == f"/me/todo/lists/{tasks}/tasks/{task_id}"
    assert found["body"] == "Line one & more\nLine\xa0two" and found["body_chars"] == len(found["body"])
    assert found["body_preview"] == "Line one & more Line two"
    assert found["checklist"] == [
        {"id": "ci1", "title": "Reply", "checked": True, "checked_at": "2026-03-02T10:00:00Z"}
    ]
    assert found["linked_resources"] == [
        {"id": "lr1", "title": "The mail", "url": "https://outlook.office.com/mail/id/1", "application": "Outlook"}
    ]
    assert found["time_zone"] == "Etc/UTC" and found["notes"] == []


@covers("get_task")
async def test_long_notes_come_in_windows(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    text = "\n".join(f"line {n:03}" for n in range(100))
    task_id = world.add_task(tasks, "Long", body={"content": text, "contentType": "text"})
    first = await todo.call("get_task", list_id=tasks, task_id=task_id, max_body_chars=200)
    assert first["body"] == text[: len(first["body"])] and first["body_next_offset"] == len(first["body"])
    rest = await todo.call(
        "get_task", list_id=tasks, task_id=task_id, body_offset=first["body_next_offset"], max_body_chars=200_000
    )
    assert first["body"] + rest["body"] == text and "body_next_offset" not in rest
    assert len(first["body_preview"]) == 201 and first["body_preview"].endswith("…")


@covers("create_task")
async def test_create_task_sends_every_field(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    created = await todo.call(
        "create_task",
        list_id=tasks,
        title="Water plants",
        body="Balcony first",
        due_date="2026-03-08",
        reminder="2026-03-08T08:00:00",
        importance="high",
        categories=["Home", "Home", "Blue category"],
        recurrence={"frequency": "weekly", "interval": 2, "days_of_week": ["sunday", "wednesday"], "count": 10},
        time_zone="Europe/Berlin",
    )
    sent = todo.last
    assert (sent.method, sent.path) == ("POST", f"/me/todo/lists/{tasks}/tasks")
    assert sent.json == {
        "title": "Water plants",
        "body": {"content": "Balcony first", "contentType": "text"},
        "dueDateTime": {"dateTime": "2026-03-08T00:00:00", "timeZone": "W. Europe Standard Time"},
        "reminderDateTime": {"dateTime": "2026-03-08T07:00:00", "timeZone": "UTC"},
        "isReminderOn": True,
        "importance": "high",
        "categories": ["Home", "Blue category"],
        "recurrence": {
            "pattern": {
                "interval": 2,
                "type": "weekly",
                "daysOfWeek": ["sunday", "wednesday"],
                "firstDayOfWeek": "sunday",
            },
            "range": {"type": "numbered", "startDate": "2026-03-08", "numberOfOccurrences": 10},
        },
    }
    assert created["done"] == "created" and created["due_date"] == "2026-03-08"
    assert created["reminder"] == "2026-03-08T08:00:00+01:00" and created["importance"] == "high"
    assert created["recurrence"]["summary"] == "every 2 weeks on sunday, wednesday, 10 times"
    assert created["body_preview"] == "Balcony first" and created["time_zone"] == "Europe/Berlin"


@covers("update_task")
async def test_update_task_sends_only_what_changes(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    task_id = world.add_task(tasks, "Old", importance="low")
    updated = await todo.call(
        "update_task", list_id=tasks, task_id=task_id, title="New", status="inProgress", importance="normal"
    )
    assert todo.last.method == "PATCH" and todo.last.path == f"/me/todo/lists/{tasks}/tasks/{task_id}"
    assert todo.last.json == {"title": "New", "status": "inProgress", "importance": "normal"}
    assert updated["title"] == "New" and updated["status"] == "inProgress"
    assert updated["done"] == "updated importance, status, title"


@covers("create_task", "update_task")
async def test_clearing_a_due_date_also_ends_the_recurrence(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    created = await todo.call(
        "create_task", list_id=tasks, title="Gym", due_date="2026-03-09", recurrence={"frequency": "daily"}
    )
    assert created["recurrence"]["summary"] == "every day"
    cleared = await todo.call(
        "update_task", list_id=tasks, task_id=created["id"], clear=["due_date", "reminder", "categories", "body"]
    )
    assert todo.last.json == {
        "dueDateTime": None,
        "recurrence": None,
        "reminderDateTime": None,
        "isReminderOn": False,
        "categories": [],
        "body": {"content": "", "contentType": "text"},
    }
    assert "due_date" not in cleared and "recurrence" not in cleared and "reminder" not in cleared
    assert cleared["notes"] == ["the task no longer repeats: To Do repeats only tasks with a due date"]


@covers("update_task")
async def test_update_task_refuses_contradictions_and_empty_calls(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    task_id = world.add_task(tasks, "x")
    with pytest.raises(InvalidArgument, match="`clear` names due_date, which this call also sets") as caught:
        await todo.call("update_task", list_id=tasks, task_id=task_id, due_date="2026-03-08", clear=["due_date"])
    assert caught.value.data["field"] == "clear"
    with pytest.raises(InvalidArgument, match="nothing to change"):
        await todo.call("update_task", list_id=tasks, task_id=task_id)
    assert todo.fake.requests == []


@covers("update_task")
async def test_a_new_recurrence_starts_on_the_tasks_own_due_day(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    task_id = world.add_task(
        tasks, "Rent", dueDateTime={"dateTime": "2026-03-31T00:00:00", "timeZone": "Tokyo Standard Time"}
    )
    updated = await todo.call(
        "update_task", list_id=tasks, task_id=task_id, recurrence={"frequency": "monthly"}, time_zone="Asia/Tokyo"
    )
    lookup, patch = todo.fake.requests[-2:]
    assert (lookup.method, lookup.params) == ("GET", {"$select": "id,dueDateTime"})
    assert patch.json == {
        "recurrence": {
            "pattern": {"interval": 1, "type": "absoluteMonthly", "dayOfMonth": 31},
            "range": {"type": "noEnd", "startDate": "2026-03-31"},
        }
    }
    assert updated["recurrence"]["summary"] == "every month on day 31"
    undated = world.add_task(tasks, "No date")
    with pytest.raises(InvalidArgument, match="a repeating task needs a due date") as caught:
        await todo.call("update_task", list_id=tasks, task_id=undated, recurrence={"frequency": "daily"})
    assert caught.value.data["field"] == "recurrence"


@covers("complete_task")
async def test_complete_and_reopen(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    task_id = world.add_task(
        tasks,
        "Weekly report",
        dueDateTime={"dateTime": "2026-03-06T00:00:00", "timeZone": "UTC"},
        recurrence={"pattern": {"type": "weekly", "interval": 1, "daysOfWeek": ["friday"]}, "range": {"type": "noEnd"}},
    )
    done = await todo.call("complete_task", list_id=tasks, task_id=task_id, time_zone="America/New_York")
    assert todo.last.json == {"status": "completed"} and todo.last.method == "PATCH"
    assert done["status"] == "completed" and done["completed_at"] == "2026-03-08T20:00:00-04:00"
    assert done["done"] == "completed" and done["notes"] == [
        "it repeats: To Do adds the next occurrence as a new task in the same list"
    ]
    reopened = await todo.call("complete_task", list_id=tasks, task_id=task_id, reopen=True)
    assert todo.last.json == {"status": "notStarted"}
    assert reopened["status"] == "notStarted" and "completed_at" not in reopened and reopened["notes"] == []


@covers("delete_task")
async def test_delete_task(todo: Harness, world: World) -> None:
    tasks = default_list(world)
    task_id = world.add_task(tasks, "Bye")
    assert await todo.call("delete_task", list_id=tasks, task_id=task_id) == {"id": task_id, "done": "deleted"}
    assert todo.last.method == "DELETE" and world.task(tasks, task_id) is None
    with pytest.raises(NotFound, match=f"task {task_id} in list {tasks} not found, or the account cannot see it"):
        await todo.call("delete_task", list_id=tasks, task_id=task_id)
