"""MCP resource: a list's open tasks as a Markdown checklist."""

from __future__ import annotations

import re

from mcpist.modules import InvalidArgument

from ._module import Ctx, module
from ._tasks import list_tasks
from ._time import SERVICE

_ID = re.compile(r"^[A-Za-z0-9=_+\-]{1,512}$")


@module.resource(
    "microsoft-todo://lists/{list_id}/tasks", tool="list_tasks", name="open_tasks", mime_type="text/markdown"
)
async def open_tasks(ctx: Ctx, list_id: str) -> str:
    """A To Do list's first 100 open tasks, soonest due first, as a Markdown checklist."""
    if not _ID.fullmatch(list_id):
        raise InvalidArgument(f"{SERVICE}: {list_id!r} is not a list id", {"service": SERVICE, "field": "list_id"})
    page = await list_tasks(ctx, list_id=list_id, order_by="due", limit=100)
    lines = []
    for task in page.items:
        extra = [f"due {task.due_date}"] if task.due_date else []
        if task.importance == "high":
            extra.append("important")
        if task.recurrence:
            extra.append(task.recurrence.summary)
        lines.append(f"- [ ] {task.title}" + (f" ({'; '.join(extra)})" if extra else "") + f" <!-- {task.id} -->")
    if page.next_cursor:
        lines.append("- … more: call list_tasks with cursor")
    return "\n".join(lines) + "\n" if lines else "No open tasks.\n"
