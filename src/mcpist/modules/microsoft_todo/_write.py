"""Tools that change tasks: create, update, complete or reopen, delete."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from ._common import ListId, TaskId, Title, invalid, not_found, read_task, task_path, tasks_path
from ._models import Deleted, TaskResult
from ._module import Ctx, module
from ._recurrence import RecurrenceIn, recurrence_to_graph
from ._tasks import Importance
from ._time import PREFER_UTC, TimeZoneName, Zone, caller_zone, due_from_graph, due_to_graph, reminder_to_graph

Body = Annotated[str, Field(max_length=100_000, description="the task's notes, plain text")]
DueDate = Annotated[date, Field(description="the day it is due, YYYY-MM-DD (To Do keeps days, not times)")]
Reminder = Annotated[
    datetime,
    Field(description="when to remind: 2026-03-08T09:00 is read in time_zone; an offset (+01:00, Z) is exact"),
]
Categories = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=255)]],
    Field(max_length=25, description="category names, e.g. Red category or your own"),
]
Clearable = Literal["due_date", "reminder", "recurrence", "body", "categories"]


def _fields(
    zone: Zone,
    *,
    body: str | None,
    due_date: date | None,
    reminder: datetime | None,
    importance: str | None,
    categories: list[str] | None,
) -> tuple[dict[str, Any], list[str]]:
    out: dict[str, Any] = {}
    notes: list[str] = []
    if body is not None:
        out["body"] = {"content": body, "contentType": "text"}
    if due_date is not None:
        out["dueDateTime"] = due_to_graph(due_date, zone)
    if reminder is not None:
        out["reminderDateTime"], notes = reminder_to_graph(reminder, zone)
        out["isReminderOn"] = True
    if importance is not None:
        out["importance"] = importance
    if categories is not None:
        out["categories"] = list(dict.fromkeys(categories))
    return out, notes


def _result(ctx: Ctx, body: Any, list_id: str, zone: Zone, notes: list[str], done: str) -> TaskResult:
    said = list(notes)
    task = read_task(ctx.http.parse(dict[str, Any], body), list_id, zone, said)
    return TaskResult(**task.model_dump(), time_zone=zone.key, notes=list(dict.fromkeys(said)), done=done)


@module.tool()
async def create_task(
    ctx: Ctx,
    list_id: ListId,
    title: Title,
    body: Body | None = None,
    due_date: DueDate | None = None,
    reminder: Reminder | None = None,
    importance: Importance | None = None,
    recurrence: Annotated[RecurrenceIn | None, Field(description="needs due_date")] = None,
    categories: Categories | None = None,
    time_zone: TimeZoneName = None,
) -> TaskResult:
    """Add a task to a list: notes, due day, reminder, importance, recurrence and categories."""
    zone = caller_zone(time_zone, ctx.settings.time_zone)
    payload, notes = _fields(
        zone, body=body, due_date=due_date, reminder=reminder, importance=importance, categories=categories
    )
    payload = {"title": title, **payload}
    if recurrence is not None:
        payload["recurrence"] = recurrence_to_graph(recurrence, due_date)
    with not_found(f"list {list_id}"):
        created = await ctx.http.post_json(tasks_path(list_id), payload, headers=PREFER_UTC)
    return _result(ctx, created, list_id, zone, notes, "created")


@module.tool(idempotent=True)
async def update_task(
    ctx: Ctx,
    list_id: ListId,
    task_id: TaskId,
    title: Title | None = None,
    body: Body | None = None,
    due_date: DueDate | None = None,
    reminder: Reminder | None = None,
    importance: Importance | None = None,
    status: Literal["notStarted", "inProgress", "completed", "waitingOnOthers", "deferred"] | None = None,
    recurrence: Annotated[RecurrenceIn | None, Field(description="replaces the rule; starts on the due date")] = None,
    categories: Annotated[Categories | None, Field(description="replaces the task's categories")] = None,
    clear: Annotated[
        list[Clearable] | None, Field(max_length=5, description="remove these (due_date also ends recurrence)")
    ] = None,
    time_zone: TimeZoneName = None,
) -> TaskResult:
    """Change a task: only the fields given change; `clear` removes a due date, reminder, recurrence and more."""
    zone = caller_zone(time_zone, ctx.settings.time_zone)
    cleared = set(clear or [])
    given: dict[str, object] = {"due_date": due_date, "reminder": reminder, "recurrence": recurrence, "body": body}
    given["categories"] = categories
    both = sorted(name for name in cleared if given[name] is not None)
    if both:
        raise invalid(f"`clear` names {', '.join(both)}, which this call also sets", field="clear")
    payload, notes = _fields(
        zone, body=body, due_date=due_date, reminder=reminder, importance=importance, categories=categories
    )
    if title is not None:
        payload["title"] = title
    if status is not None:
        payload["status"] = status
    if "due_date" in cleared:
        payload["dueDateTime"] = None
        if "recurrence" not in cleared and recurrence is None:
            cleared.add("recurrence")
            notes.append("the task no longer repeats: To Do repeats only tasks with a due date")
    if "reminder" in cleared:
        payload |= {"reminderDateTime": None, "isReminderOn": False}
    if "recurrence" in cleared:
        payload["recurrence"] = None
    if "body" in cleared:
        payload["body"] = {"content": "", "contentType": "text"}
    if "categories" in cleared:
        payload["categories"] = []
    url = task_path(list_id, task_id)
    with not_found(f"task {task_id} in list {list_id}"):
        if recurrence is not None:
            start = due_date
            if start is None:
                current = await ctx.http.get_json(url, params={"$select": "id,dueDateTime"}, headers=PREFER_UTC)
                day = due_from_graph(ctx.http.parse(dict[str, Any], current).get("dueDateTime"), zone)
                start = date.fromisoformat(day) if day else None
            payload["recurrence"] = recurrence_to_graph(recurrence, start)
        if not payload:
            raise invalid("nothing to change: give a field to set or `clear`")
        updated = await ctx.http.patch_json(url, payload, headers=PREFER_UTC, retry=True)
    return _result(ctx, updated, list_id, zone, notes, "updated " + ", ".join(sorted(payload)))


@module.tool(idempotent=True)
async def complete_task(
    ctx: Ctx,
    list_id: ListId,
    task_id: TaskId,
    reopen: Annotated[bool, Field(description="true: mark it not started again")] = False,
    time_zone: TimeZoneName = None,
) -> TaskResult:
    """Mark a task completed, or reopen a completed one; a repeating task's next occurrence is made by To Do."""
    zone = caller_zone(time_zone, ctx.settings.time_zone)
    with not_found(f"task {task_id} in list {list_id}"):
        updated = await ctx.http.patch_json(
            task_path(list_id, task_id),
            {"status": "notStarted" if reopen else "completed"},
            headers=PREFER_UTC,
            retry=True,
        )
    raw = ctx.http.parse(dict[str, Any], updated)
    notes = []
    if not reopen and raw.get("recurrence"):
        notes.append("it repeats: To Do adds the next occurrence as a new task in the same list")
    return _result(ctx, raw, list_id, zone, notes, "reopened" if reopen else "completed")


@module.tool(destructive=True, idempotent=True)
async def delete_task(ctx: Ctx, list_id: ListId, task_id: TaskId) -> Deleted:
    """Delete a task with its checklist and linked resources."""
    with not_found(f"task {task_id} in list {list_id}"):
        await ctx.http.request("DELETE", task_path(list_id, task_id), retry=True)
    return Deleted(id=task_id, done="deleted")
