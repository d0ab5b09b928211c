"""get_task_changes: Graph's delta query on a list's tasks, behind one opaque sync_token.

The token wraps the URL to call next: an `@odata.nextLink` while a round is under way (has_more), the
`@odata.deltaLink` once it is done, plus how many items of that page were already handed out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from pydantic import Field

from mcpist.modules import InvalidArgument, MCPistError, NotFound
from mcpist.upstream import Limit, collect, encode_cursor, odata_next

from ._common import ListId, check_next_link, invalid, read_task, tasks_path, values
from ._models import Task, TaskChanges
from ._module import Ctx, module
from ._time import PREFER_UTC, SERVICE, TimeZoneName, caller_zone

SyncToken = Annotated[
    str | None,
    Field(max_length=2048, description="the sync_token of the previous call; omit for a first, full sync"),
]
_EXPIRED_WORDS = ("syncstate", "resync", "deltatoken", "sync state")


@contextmanager
def _expired_token(list_id: str, given: bool) -> Iterator[None]:
    """Graph forgets delta state after a while and answers 410 Gone (sometimes a 400 naming the sync state)."""
    try:
        yield
    except MCPistError as exc:
        status = exc.data.get("status")
        gone = status == 410 or (status == 400 and any(w in exc.message.lower() for w in _EXPIRED_WORDS))
        if not (given and gone):
            if isinstance(exc, NotFound) and status == 404:
                raise NotFound(f"{SERVICE}: list {list_id} not found, or the account cannot see it", exc.data) from None
            raise
        raise InvalidArgument(
            f"{SERVICE}: the sync_token has expired (Graph keeps change tracking for a limited time); call "
            "get_task_changes again without sync_token to start over: it returns every task and a new token",
            {**exc.data, "field": "sync_token", "expired": True},
        ) from None


@module.tool(read_only=True)
async def get_task_changes(
    ctx: Ctx,
    list_id: ListId,
    sync_token: SyncToken = None,
    limit: Annotated[Limit, Field(description="changes to return at most; has_more says if others wait")] = 100,
    time_zone: TimeZoneName = None,
) -> TaskChanges:
    """Sync a list: without sync_token every task and a token; with it, what changed since, removed ids too."""
    zone = caller_zone(time_zone, ctx.settings.time_zone)
    start = f"{tasks_path(list_id)}/microsoft.graph.delta()"
    delta_link: list[str] = []

    async def fetch(url: str | None) -> tuple[list[dict[str, Any]], str | None]:
        if url is None:
            body = await ctx.http.get_json(start, headers=PREFER_UTC)
        else:
            check_next_link(ctx, url, "sync_token", list_id)
            body = await ctx.http.get_json(url, headers=PREFER_UTC)
        following = odata_next(body)
        if following is None:
            link = ctx.http.parse(dict[str, Any], body).get("@odata.deltaLink")
            if not isinstance(link, str) or not link:
                raise invalid("Graph ended the change list without a deltaLink; call again without sync_token")
            delta_link.append(link)
        return values(ctx, body), following

    with _expired_token(list_id, sync_token is not None):
        try:
            page = await collect(fetch, limit, cursor=sync_token, service=SERVICE, state_type=str)
        except InvalidArgument as exc:
            if exc.data.get("field") == "cursor":
                raise invalid(
                    "`sync_token` is not one this tool returned; omit it to start over", field="sync_token"
                ) from None
            raise
    changed: list[Task] = []
    removed: list[str] = []
    notes: list[str] = []
    for raw in page.items:
        if "@removed" in raw:
            removed.append(str(raw.get("id", "")))
        else:
            changed.append(read_task(raw, list_id, zone, notes))
    has_more = page.next_cursor is not None
    token = page.next_cursor or encode_cursor({"p": delta_link[-1], "k": 0})
    return TaskChanges(
        changed=changed,
        removed=removed,
        sync_token=token,
        has_more=has_more,
        time_zone=zone.key,
        notes=list(dict.fromkeys(notes)),
    )
