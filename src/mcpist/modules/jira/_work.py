"""Tools that work an issue: transitions, comments, assignee, worklogs, links and attachments."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from mcpist.upstream import Cursor, Limit, Page

from ._common import (
    REST,
    AccountId,
    IssueKey,
    Raw,
    RichText,
    Site,
    envelope,
    invalid,
    not_found,
    offset_paged,
    rich_in,
    rich_out,
    seg,
    target,
)
from ._models import Attachment, Attachments, Comment, Transition, Transitions, Worklog, Written, cut, name_of
from ._module import Ctx, module

CommentId = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^\d+$")]


@module.tool(read_only=True)
async def get_transitions(ctx: Ctx, key: IssueKey, site: Site = None) -> Transitions:
    """The workflow transitions an issue can take now, with the status each leads to."""
    where = target(ctx, site)
    with not_found(f"issue {key}"):
        found = await ctx.http.get_json(
            f"{where.prefix}{REST}/issue/{seg(key)}/transitions", params={"expand": "transitions.fields"}
        )
    items = ctx.http.parse(dict[str, Any], found).get("transitions") or []
    return Transitions(key=key, transitions=[_transition(t) for t in ctx.http.parse(list[dict[str, Any]], items)])


def _transition(raw: dict[str, Any]) -> Transition:
    status = raw.get("to") or {}
    fields = raw.get("fields") or {}
    return Transition(
        id=str(raw.get("id", "")),
        name=str(raw.get("name", "")),
        to=name_of(status),
        category=name_of(status.get("statusCategory")),
        fields_required=sorted(k for k, v in fields.items() if isinstance(v, dict) and v.get("required")),
    )


@module.tool()
async def transition_issue(
    ctx: Ctx,
    key: IssueKey,
    transition: Annotated[str, Field(min_length=1, max_length=100, description="transition id, name or target status")],
    comment: Annotated[RichText | None, Field(description="Markdown comment added with it")] = None,
    fields: Annotated[
        dict[str, Any] | None, Field(description='fields the screen asks, e.g. {"resolution": {"name": "Done"}}')
    ] = None,
    site: Site = None,
) -> Written:
    """Move an issue through its workflow (e.g. to In Progress or Done) by transition id, name or status."""
    where = target(ctx, site)
    url = f"{where.prefix}{REST}/issue/{seg(key)}/transitions"
    with not_found(f"issue {key}"):
        found = ctx.http.parse(dict[str, Any], await ctx.http.get_json(url))
        options = [_transition(t) for t in ctx.http.parse(list[dict[str, Any]], found.get("transitions") or [])]
        wanted = transition.lower()
        chosen = next((t for t in options if wanted in (t.id, t.name.lower(), (t.to or "").lower())), None)
        if chosen is None:
            names = ", ".join(f"{t.name} (→ {t.to})" for t in options) or "none"
            raise invalid(f"{key} cannot take {transition!r} now; it can take {names}", field="transition")
        body: dict[str, Any] = {"transition": {"id": chosen.id}}
        if fields:
            body["fields"] = fields
        if comment:
            body["update"] = {"comment": [{"add": {"body": rich_in(comment, False, "comment")}}]}
        await ctx.http.request("POST", url, json=body)
    return Written(key=key, url=f"{where.web}/browse/{key}", done=f"{chosen.name} → {chosen.to}")


@module.tool()
async def add_comment(ctx: Ctx, key: IssueKey, body: RichText, raw: Raw = False, site: Site = None) -> Comment:
    """Comment on an issue (Markdown; @mentions keep their `<!-- adf:... -->` markers)."""
    where = target(ctx, site)
    with not_found(f"issue {key}"):
        created = await ctx.http.post_json(
            f"{where.prefix}{REST}/issue/{seg(key)}/comment", {"body": rich_in(body, raw, "body")}
        )
    return _comment(ctx.http.parse(dict[str, Any], created), raw)


@module.tool(idempotent=True)
async def edit_comment(
    ctx: Ctx, key: IssueKey, comment_id: CommentId, body: RichText, raw: Raw = False, site: Site = None
) -> Comment:
    """Replace the text of one of an issue's comments."""
    where = target(ctx, site)
    with not_found(f"comment {comment_id} on {key}"):
        updated = await ctx.http.put_json(
            f"{where.prefix}{REST}/issue/{seg(key)}/comment/{seg(comment_id)}",
            {"body": rich_in(body, raw, "body")},
            retry=True,
        )
    return _comment(ctx.http.parse(dict[str, Any], updated), raw)


def _comment(raw: dict[str, Any], as_raw: bool) -> Comment:
    return Comment(
        id=str(raw.get("id", "")),
        author=name_of(raw.get("author")),
        created=raw.get("created"),
        updated=raw.get("updated"),
        body=cut(rich_out(raw.get("body"), as_raw)),
    )


@module.tool(idempotent=True)
async def assign_issue(
    ctx: Ctx,
    key: IssueKey,
    account_id: Annotated[AccountId | None, Field(description="search_users finds it; none unassigns")] = None,
    site: Site = None,
) -> Written:
    """Assign an issue to a user by accountId, or unassign it."""
    where = target(ctx, site)
    body: dict[str, Any]
    with not_found(f"issue {key}"):
        if account_id:
            url, body = f"{where.prefix}{REST}/issue/{seg(key)}/assignee", {"accountId": account_id}
        else:
            # the assignee endpoint's body takes no null in the API description; editing the field does
            url, body = f"{where.prefix}{REST}/issue/{seg(key)}", {"fields": {"assignee": None}}
        await ctx.http.request("PUT", url, json=body, retry=True)
    return Written(
        key=key, url=f"{where.web}/browse/{key}", done=f"assigned to {account_id}" if account_id else "unassigned"
    )


@module.tool(read_only=True)
async def list_worklogs(
    ctx: Ctx, key: IssueKey, limit: Limit = 50, cursor: Cursor = None, site: Site = None
) -> Page[Worklog]:
    """Time logged on an issue, oldest first."""
    where = target(ctx, site)

    def read(body: Any) -> tuple[list[Worklog], int | None, bool | None]:
        items, total, last = envelope(ctx, body, "worklogs")
        return [_worklog(w) for w in items], total, last

    with not_found(f"issue {key}"):
        return await offset_paged(
            ctx, f"{where.prefix}{REST}/issue/{seg(key)}/worklog", read, limit=limit, cursor=cursor
        )


def _worklog(raw: dict[str, Any]) -> Worklog:
    comment = rich_out(raw.get("comment"), False)
    return Worklog(
        id=str(raw.get("id", "")),
        author=name_of(raw.get("author")),
        started=raw.get("started"),
        time_spent=raw.get("timeSpent"),
        seconds=raw.get("timeSpentSeconds"),
        comment=cut(comment, 1000) or None,
    )


@module.tool()
async def add_worklog(
    ctx: Ctx,
    key: IssueKey,
    time_spent: Annotated[
        str, Field(min_length=2, max_length=50, pattern=r"^(\d+(\.\d+)?[wdhm]\s*)+$", description='e.g. "1h 30m", "2d"')
    ],
    started: Annotated[datetime | None, Field(description="when the work started; default now")] = None,
    comment: Annotated[RichText | None, Field(description="Markdown")] = None,
    site: Site = None,
) -> Worklog:
    """Log time spent on an issue."""
    where = target(ctx, site)
    body: dict[str, Any] = {"timeSpent": time_spent}
    if started is not None:
        # Jira wants "2026-03-01T12:00:00.000+0000"
        when = started if started.tzinfo else started.astimezone()
        body["started"] = when.strftime("%Y-%m-%dT%H:%M:%S.000%z")
    if comment:
        body["comment"] = rich_in(comment, False, "comment")
    with not_found(f"issue {key}"):
        created = await ctx.http.post_json(f"{where.prefix}{REST}/issue/{seg(key)}/worklog", body)
    return _worklog(ctx.http.parse(dict[str, Any], created))


@module.tool()
async def link_issues(
    ctx: Ctx,
    key: Annotated[IssueKey, Field(description="the issue the link reads from (outward), e.g. PROJ-1 blocks …")],
    other: Annotated[IssueKey, Field(description="the other issue (inward)")],
    link_type: Annotated[
        str, Field(min_length=1, max_length=100, description="e.g. Blocks, Relates, Duplicate")
    ] = "Relates",
    site: Site = None,
) -> Written:
    """Link two issues, e.g. PROJ-1 Blocks PROJ-2 (key=PROJ-1, other=PROJ-2, link_type=Blocks)."""
    where = target(ctx, site)
    body = {"type": {"name": link_type}, "outwardIssue": {"key": other}, "inwardIssue": {"key": key}}
    with not_found(f"issue {key} or {other}, or link type {link_type}"):
        await ctx.http.request("POST", f"{where.prefix}{REST}/issueLink", json=body)
    return Written(key=key, url=f"{where.web}/browse/{key}", done=f"{key} {link_type} {other}")


@module.tool(read_only=True)
async def list_attachments(ctx: Ctx, key: IssueKey, site: Site = None) -> Attachments:
    """An issue's attachments: names, sizes, types, authors and content URLs."""
    where = target(ctx, site)
    with not_found(f"issue {key}"):
        found = await ctx.http.get_json(f"{where.prefix}{REST}/issue/{seg(key)}", params={"fields": "attachment"})
    fields = ctx.http.parse(dict[str, Any], found).get("fields") or {}
    items = ctx.http.parse(list[dict[str, Any]], fields.get("attachment") or [])
    return Attachments(
        key=key,
        attachments=[
            Attachment(
                id=str(a.get("id", "")),
                filename=str(a.get("filename", "")),
                size=a.get("size"),
                mime_type=a.get("mimeType"),
                created=a.get("created"),
                author=name_of(a.get("author")),
                url=a.get("content"),
            )
            for a in items
        ],
    )
