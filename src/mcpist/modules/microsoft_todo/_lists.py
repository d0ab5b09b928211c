"""Tools for task lists: list, create, rename, delete."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcpist.upstream import Cursor, Limit

from ._common import LISTS, ListId, list_path, not_found, odata_paged
from ._models import Deleted, TaskList, TaskListPage
from ._module import Ctx, module

ListName = Annotated[str, Field(min_length=1, max_length=255, description="the list's name")]


def read_list(raw: dict[str, Any]) -> TaskList:
    kind = raw.get("wellknownListName")
    return TaskList(
        id=str(raw.get("id", "")),
        name=str(raw.get("displayName") or ""),
        default=kind == "defaultList",
        kind=kind if isinstance(kind, str) else None,
        is_owner=raw.get("isOwner") if isinstance(raw.get("isOwner"), bool) else None,
        is_shared=raw.get("isShared") if isinstance(raw.get("isShared"), bool) else None,
    )


@module.tool(read_only=True)
async def list_task_lists(ctx: Ctx, limit: Limit = 50, cursor: Cursor = None) -> TaskListPage:
    """The account's To Do lists with their ids (default marks the built-in Tasks list)."""
    page = await odata_paged(ctx, LISTS, read_list, limit=limit, cursor=cursor, page_size=max(limit, 50))
    return TaskListPage(items=page.items, next_cursor=page.next_cursor)


@module.tool()
async def create_task_list(ctx: Ctx, name: ListName) -> TaskList:
    """Create a To Do list and return it with its id."""
    created = await ctx.http.post_json(LISTS, {"displayName": name})
    return read_list(ctx.http.parse(dict[str, Any], created))


@module.tool(idempotent=True)
async def rename_task_list(ctx: Ctx, list_id: ListId, name: ListName) -> TaskList:
    """Rename a To Do list."""
    with not_found(f"list {list_id}"):
        updated = await ctx.http.patch_json(list_path(list_id), {"displayName": name}, retry=True)
    return read_list(ctx.http.parse(dict[str, Any], updated))


@module.tool(destructive=True, idempotent=True)
async def delete_task_list(ctx: Ctx, list_id: ListId) -> Deleted:
    """Delete a To Do list with all its tasks (the default Tasks list cannot be deleted)."""
    with not_found(f"list {list_id}"):
        await ctx.http.request("DELETE", list_path(list_id), retry=True)
    return Deleted(id=list_id, done="deleted the list and its tasks")
