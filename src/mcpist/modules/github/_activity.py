"""Tools for the account's notifications."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from mcpist.upstream import Cursor, Limit, Page

from ._common import drop_none, iso, paged
from ._models import MarkedRead, Notification
from ._module import Ctx, module


@module.tool(read_only=True)
async def list_notifications(
    ctx: Ctx,
    include_read: Annotated[bool, Field(description="read ones too")] = False,
    participating: Annotated[bool, Field(description="only where you are mentioned or take part")] = False,
    since: Annotated[datetime | None, Field(description="updated at or after")] = None,
    limit: Limit = 30,
    cursor: Cursor = None,
) -> Page[Notification]:
    """The account's notifications, newest first: repository, issue/PR number, title, reason, thread id."""
    params = drop_none(
        all=str(include_read).lower(),
        participating=str(participating).lower(),
        since=iso(since),
    )
    # the notifications API serves at most 50 a page
    page, _ = await paged(
        ctx, "/notifications", Notification, limit=limit, cursor=cursor, params=params, per_page=min(limit, 50)
    )
    return page


@module.tool(idempotent=True)
async def mark_notifications_read(
    ctx: Ctx,
    thread_id: Annotated[int | None, Field(ge=1, description="one thread (a notification's id); omit for all")] = None,
    before: Annotated[datetime | None, Field(description="with all: only those updated before this")] = None,
) -> MarkedRead:
    """Mark one notification thread, or all notifications (optionally up to a time), as read."""
    if thread_id is not None:
        await ctx.http.request("PATCH", f"/notifications/threads/{thread_id}")
        return MarkedRead(scope=str(thread_id), pending=False)
    body = drop_none(read=True, last_read_at=iso(before))
    response = await ctx.http.request("PUT", "/notifications", json=body)
    # 202: GitHub marks them in the background; 205: done
    return MarkedRead(scope="all", pending=response.status_code == 202)
