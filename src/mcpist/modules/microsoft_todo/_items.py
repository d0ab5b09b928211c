"""Tools that edit a task's checklist steps and linked resources, several edits in one call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from mcpist.modules import MCPistError

from ._common import ItemId, ListId, TaskId, Title, invalid, not_found, seg, task_path, values
from ._models import ChecklistResult, LinkedResult
from ._module import Ctx, module
from ._tasks import checklist_item, linked_resource

MAX_EDITS = 50
Ids = Annotated[list[ItemId], Field(max_length=MAX_EDITS)]


class ItemEdit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: ItemId
    title: Title | None = None
    checked: bool | None = None


class LinkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048, pattern=r"^https?://\S+$", description="what the task links to")
    title: str = Field(min_length=1, max_length=255)
    application: str = Field("MCPist", min_length=1, max_length=255, description="the app it belongs to")
    external_id: str | None = Field(None, max_length=255, description="its id in that app")


class LinkEdit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: ItemId
    url: str | None = Field(None, min_length=1, max_length=2048, pattern=r"^https?://\S+$")
    title: str | None = Field(None, min_length=1, max_length=255)


def _check_ids(groups: dict[str, list[str]], total: int) -> None:
    if total == 0:
        raise invalid("nothing to do: give at least one edit")
    if total > MAX_EDITS:
        raise invalid(f"{total} edits in one call; at most {MAX_EDITS}")
    seen: dict[str, str] = {}
    for field, ids in groups.items():
        for item in ids:
            if item in seen:
                where = field if seen[item] == field else f"{seen[item]} and {field}"
                raise invalid(f"item {item} is named twice ({where}); give each item one edit", field=field)
            seen[item] = field


Edit = tuple[str, Callable[[], Awaitable[Any]]]


@contextmanager
def _so_far(done: list[str]) -> Iterator[None]:
    """A failing edit stops the rest; the error says which edits were already made, since they stay made."""
    try:
        yield
    except MCPistError as exc:
        if done:
            # amended in place: a subclass (a connect request) may not be rebuilt from a message
            exc.message = f"{exc.message} (already made: {'; '.join(done)}; nothing after it)"
            exc.args = (exc.message,)
            exc.data["done"] = list(done)
        raise


async def _run(done: list[str], edits: list[Edit], what: str) -> None:
    with _so_far(done), not_found(what):
        for said, edit in edits:
            result = await edit()
            new_id = result.get("id") if isinstance(result, dict) else None
            done.append(f"{said} as {new_id}" if said.startswith("added") and new_id else said)


@module.tool()
async def manage_checklist_items(
    ctx: Ctx,
    list_id: ListId,
    task_id: TaskId,
    add: Annotated[list[Title] | None, Field(max_length=MAX_EDITS, description="titles of new steps")] = None,
    update: Annotated[list[ItemEdit] | None, Field(max_length=MAX_EDITS, description="rename, (un)check")] = None,
    check: Annotated[Ids | None, Field(description="ids of steps to tick")] = None,
    uncheck: Annotated[Ids | None, Field(description="ids of steps to untick")] = None,
    delete: Annotated[Ids | None, Field(description="ids of steps to remove")] = None,
) -> ChecklistResult:
    """Edit a task's checklist (steps) in one call: add, rename, check, uncheck, delete; returns the checklist."""
    add, update, check, uncheck, delete = add or [], update or [], check or [], uncheck or [], delete or []
    _check_ids(
        {"update": [e.id for e in update], "check": check, "uncheck": uncheck, "delete": delete},
        len(add) + len(update) + len(check) + len(uncheck) + len(delete),
    )
    for edit in update:
        if edit.title is None and edit.checked is None:
            raise invalid(f"update of item {edit.id} changes nothing: give title or checked", field="update")
    base = f"{task_path(list_id, task_id)}/checklistItems"

    def patch(item: str, body: dict[str, Any]) -> Callable[[], Awaitable[Any]]:
        return lambda: ctx.http.patch_json(f"{base}/{seg(item)}", body, retry=True)

    def remove(item: str) -> Callable[[], Awaitable[Any]]:
        return lambda: ctx.http.request("DELETE", f"{base}/{seg(item)}", retry=True)

    def create(title: str) -> Callable[[], Awaitable[Any]]:
        return lambda: ctx.http.post_json(base, {"displayName": title})

    edits: list[Edit] = [(f"deleted {i}", remove(i)) for i in delete]
    for edit in update:
        body: dict[str, Any] = {}
        if edit.title is not None:
            body["displayName"] = edit.title
        if edit.checked is not None:
            body["isChecked"] = edit.checked
        edits.append((f"updated {edit.id}", patch(edit.id, body)))
    edits += [(f"checked {i}", patch(i, {"isChecked": True})) for i in check]
    edits += [(f"unchecked {i}", patch(i, {"isChecked": False})) for i in uncheck]
    edits += [(f"added {title!r}", create(title)) for title in add]
    done: list[str] = []
    await _run(done, edits, f"task {task_id} in list {list_id}, or one of its checklist items")
    with not_found(f"task {task_id} in list {list_id}"):
        found = await ctx.http.get_json(base, params={"$top": 100})
    return ChecklistResult(task_id=task_id, done=done, items=[checklist_item(i) for i in values(ctx, found)])


@module.tool()
async def manage_linked_resources(
    ctx: Ctx,
    list_id: ListId,
    task_id: TaskId,
    add: Annotated[list[LinkIn] | None, Field(max_length=MAX_EDITS, description="links to attach")] = None,
    update: Annotated[list[LinkEdit] | None, Field(max_length=MAX_EDITS, description="change url/title")] = None,
    delete: Annotated[Ids | None, Field(description="ids of links to remove")] = None,
) -> LinkedResult:
    """Attach, change or remove a task's linked resources (links back to an e-mail, a file, a ticket)."""
    add, update, delete = add or [], update or [], delete or []
    _check_ids({"update": [e.id for e in update], "delete": delete}, len(add) + len(update) + len(delete))
    for edit in update:
        if edit.url is None and edit.title is None:
            raise invalid(f"update of link {edit.id} changes nothing: give url or title", field="update")
    base = f"{task_path(list_id, task_id)}/linkedResources"

    def create(link: LinkIn) -> Callable[[], Awaitable[Any]]:
        body = {"webUrl": link.url, "displayName": link.title, "applicationName": link.application}
        if link.external_id:
            body["externalId"] = link.external_id
        return lambda: ctx.http.post_json(base, body)

    def change(edit: LinkEdit) -> Callable[[], Awaitable[Any]]:
        body = {k: v for k, v in (("webUrl", edit.url), ("displayName", edit.title)) if v is not None}
        return lambda: ctx.http.patch_json(f"{base}/{seg(edit.id)}", body, retry=True)

    def remove(item: str) -> Callable[[], Awaitable[Any]]:
        return lambda: ctx.http.request("DELETE", f"{base}/{seg(item)}", retry=True)

    edits: list[Edit] = [(f"deleted {i}", remove(i)) for i in delete]
    edits += [(f"updated {e.id}", change(e)) for e in update]
    edits += [(f"added {link.url}", create(link)) for link in add]
    done: list[str] = []
    await _run(done, edits, f"task {task_id} in list {list_id}, or one of its linked resources")
    with not_found(f"task {task_id} in list {list_id}"):
        found = await ctx.http.get_json(base, params={"$top": 100})
    return LinkedResult(task_id=task_id, done=done, items=[linked_resource(r) for r in values(ctx, found)])
