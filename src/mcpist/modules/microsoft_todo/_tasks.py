"""Tools that read tasks: a list's tasks with filters, and one task with its notes, checklist and links."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.upstream import Cursor, Limit, MaxChars, Offset, clip

from ._common import (
    TASK_FIELDS,
    ListId,
    TaskId,
    body_text,
    invalid,
    not_found,
    odata_paged,
    read_task,
    task_path,
    tasks_path,
)
from ._models import ChecklistItem, LinkedResource, Task, TaskDetail, TaskPage
from ._module import Ctx, module
from ._time import PREFER_UTC, TimeZoneName, caller_zone, due_window

Status = Literal["open", "completed", "any", "notStarted", "inProgress", "waitingOnOthers", "deferred"]
Importance = Literal["low", "normal", "high"]
ORDER = {
    "due": "dueDateTime/dateTime",
    "created": "createdDateTime",
    "modified": "lastModifiedDateTime",
    "title": "title",
    "importance": "importance",
}


def status_filter(status: Status) -> str | None:
    if status == "any":
        return None
    if status == "open":
        return "status ne 'completed'"
    return f"status eq '{status}'"


@module.tool(read_only=True)
async def list_tasks(
    ctx: Ctx,
    list_id: ListId,
    status: Annotated[Status, Field(description="open = not completed")] = "open",
    due_from: Annotated[date | None, Field(description="only tasks due on or after this day")] = None,
    due_to: Annotated[date | None, Field(description="only tasks due on or before this day")] = None,
    importance: Importance | None = None,
    order_by: Literal["due", "created", "modified", "title", "importance"] | None = None,
    descending: bool = False,
    limit: Limit = 50,
    cursor: Cursor = None,
    time_zone: TimeZoneName = None,
) -> TaskPage:
    """Tasks of one list, filtered by status, due days and importance; reminders in time_zone."""
    zone = caller_zone(time_zone, ctx.settings.time_zone)
    if due_from and due_to and due_from > due_to:
        raise invalid(f"`due_to` {due_to} is before `due_from` {due_from}", field="due_to")
    clauses = [status_filter(status)]
    if importance:
        clauses.append(f"importance eq '{importance}'")
    low, high = due_window(due_from, due_to)
    if low:
        clauses.append(f"dueDateTime/dateTime ge '{low}'")
    if high:
        clauses.append(f"dueDateTime/dateTime lt '{high}'")
    params: dict[str, Any] = {"$select": ",".join(TASK_FIELDS)}
    if any(clauses):
        params["$filter"] = " and ".join(c for c in clauses if c)
    if order_by:
        params["$orderby"] = ORDER[order_by] + (" desc" if descending else "")
    notes: list[str] = []
    first, last = (due_from.isoformat() if due_from else None), (due_to.isoformat() if due_to else None)

    def keep(raw: dict[str, Any]) -> Task | None:
        task = read_task(raw, list_id, zone, notes)
        # Graph filtered on stored UTC values, a day wider each way; the due days themselves decide
        outside = task.due_date is None or (first and task.due_date < first) or (last and task.due_date > last)
        return None if (first or last) and outside else task

    with not_found(f"list {list_id}"):
        page = await odata_paged(
            ctx,
            tasks_path(list_id),
            keep,
            limit=limit,
            cursor=cursor,
            params=params,
            headers=PREFER_UTC,
            page_size=max(limit, 50) if first or last else limit,
        )
    return TaskPage(items=page.items, next_cursor=page.next_cursor, time_zone=zone.key, notes=_unique(notes))


@module.tool(read_only=True)
async def get_task(
    ctx: Ctx,
    list_id: ListId,
    task_id: TaskId,
    body_offset: Offset = 0,
    max_body_chars: MaxChars = 20_000,
    time_zone: TimeZoneName = None,
) -> TaskDetail:
    """One task with its full notes, checklist steps and linked resources."""
    zone = caller_zone(time_zone, ctx.settings.time_zone)
    with not_found(f"task {task_id} in list {list_id}"):
        found = await ctx.http.get_json(
            task_path(list_id, task_id),
            params={"$expand": "checklistItems,linkedResources"},
            headers=PREFER_UTC,
        )
    raw = ctx.http.parse(dict[str, Any], found)
    notes: list[str] = []
    task = read_task(raw, list_id, zone, notes)
    window = clip(body_text(raw.get("body")), offset=body_offset, max_chars=max_body_chars)
    return TaskDetail(
        **task.model_dump(),
        time_zone=zone.key,
        notes=_unique(notes),
        body=window.text,
        body_chars=window.total_chars,
        body_next_offset=window.next_offset,
        checklist=[checklist_item(i) for i in ctx.http.parse(list[dict[str, Any]], raw.get("checklistItems") or [])],
        linked_resources=[
            linked_resource(r) for r in ctx.http.parse(list[dict[str, Any]], raw.get("linkedResources") or [])
        ],
    )


def checklist_item(raw: dict[str, Any]) -> ChecklistItem:
    checked = raw.get("checkedDateTime")
    return ChecklistItem(
        id=str(raw.get("id", "")),
        title=str(raw.get("displayName") or ""),
        checked=raw.get("isChecked") is True,
        checked_at=checked if isinstance(checked, str) else None,
    )


def linked_resource(raw: dict[str, Any]) -> LinkedResource:
    def text(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) and value else None

    return LinkedResource(
        id=str(raw.get("id", "")),
        title=text("displayName"),
        url=text("webUrl"),
        application=text("applicationName"),
        external_id=text("externalId"),
    )


def _unique(notes: list[str]) -> list[str]:
    return list(dict.fromkeys(notes))[:10]
