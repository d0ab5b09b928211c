"""Jira Software's agile API: boards, their sprints, and moving issues into a sprint.

These endpoints (`/rest/agile/1.0/...`) are Jira Software's, documented apart from the platform API.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.upstream import Cursor, Limit, collect, offset_next

from ._common import AGILE, SERVICE, IssueKey, ProjectKey, Site, invalid, not_found, seg, target
from ._models import Board, BoardsAndSprints, Sprint, Written, name_of
from ._module import Ctx, module


@module.tool(read_only=True)
async def list_boards_and_sprints(
    ctx: Ctx,
    project: Annotated[ProjectKey | None, Field(description="only this project's boards")] = None,
    board_id: Annotated[int | None, Field(ge=1, description="list this board's sprints instead of boards")] = None,
    state: Annotated[
        list[Literal["active", "future", "closed"]] | None, Field(description="sprint states; default active, future")
    ] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
    site: Site = None,
) -> BoardsAndSprints:
    """Scrum and kanban boards (optionally of one project), or one board's sprints with ids for move_to_sprint."""
    where = target(ctx, site)
    if board_id is None:
        url, params, key = f"{where.prefix}{AGILE}/board", {"projectKeyOrId": project} if project else {}, "boards"
    else:
        states = ",".join(state or ["active", "future"])
        url, params, key = f"{where.prefix}{AGILE}/board/{seg(board_id)}/sprint", {"state": states}, "sprints"

    async def fetch(start: int | None) -> tuple[list[Any], int | None]:
        at = start or 0
        body = await ctx.http.get_json(url, params={**params, "startAt": at, "maxResults": max(limit, 50)})
        found = ctx.http.parse(dict[str, Any], body)
        items = ctx.http.parse(list[dict[str, Any]], found.get("values") or [])
        total = found.get("total") if isinstance(found.get("total"), int) else None
        answered = found["maxResults"] if isinstance(found.get("maxResults"), int) else max(limit, 50)
        return items, offset_next(at, answered, total, len(items), is_last=found.get("isLast") is True)

    with not_found(f"board {board_id}" if board_id else "boards"):
        page = await collect(fetch, limit, cursor=cursor, service=SERVICE, state_type=int)
    if key == "boards":
        boards = [
            Board(
                id=int(b["id"]),
                name=str(b.get("name", "")),
                type=b.get("type"),
                project=(b.get("location") or {}).get("projectKey") or name_of((b.get("location") or {}).get("name")),
            )
            for b in page.items
        ]
        return BoardsAndSprints(boards=boards, next_cursor=page.next_cursor)
    sprints = [
        Sprint(
            id=int(s["id"]),
            name=str(s.get("name", "")),
            state=s.get("state"),
            board_id=s.get("originBoardId"),
            start=s.get("startDate"),
            end=s.get("endDate"),
            goal=s.get("goal") or None,
        )
        for s in page.items
    ]
    return BoardsAndSprints(boards=[], sprints=sprints, next_cursor=page.next_cursor)


@module.tool(idempotent=True)
async def move_to_sprint(
    ctx: Ctx,
    sprint_id: Annotated[int, Field(ge=1, description="from list_boards_and_sprints")],
    keys: Annotated[list[IssueKey], Field(min_length=1, max_length=50)],
    site: Site = None,
) -> Written:
    """Move issues into a sprint (active or future); list_boards_and_sprints gives sprint ids."""
    where = target(ctx, site)
    if len(set(keys)) != len(keys):
        raise invalid("`keys` lists an issue twice", field="keys")
    with not_found(f"sprint {sprint_id}"):
        await ctx.http.request(
            "POST", f"{where.prefix}{AGILE}/sprint/{seg(sprint_id)}/issue", json={"issues": keys}, retry=True
        )
    return Written(
        key=keys[0], url=f"{where.web}/browse/{keys[0]}", done=f"moved {', '.join(keys)} to sprint {sprint_id}"
    )
