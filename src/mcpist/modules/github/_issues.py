"""Tools for issues and their comments (a pull request's conversation comments too)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.modules import InvalidArgument
from mcpist.upstream import Cursor, Limit, Page

from ._common import SERVICE, Number, Owner, Query, Repo, SearchPage, drop_none, iso, not_found, paged, repo_url
from ._models import Comment, IssueDetail, IssueSummary
from ._module import Ctx, module

Title = Annotated[str, Field(min_length=1, max_length=256)]
Text = Annotated[str, Field(max_length=65_536, description="Markdown")]
Labels = Annotated[list[Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=100)]
Logins = Annotated[list[Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=10)]


@module.tool(read_only=True)
async def search_issues(
    ctx: Ctx,
    query: Annotated[Query, Field(description="GitHub search syntax; include is:issue or is:pr")],
    sort: Literal["comments", "reactions", "created", "updated"] | None = None,
    order: Literal["asc", "desc"] = "desc",
    limit: Limit = 30,
    cursor: Cursor = None,
) -> SearchPage[IssueSummary]:
    """Search issues and pull requests everywhere, e.g. `is:issue is:open repo:acme/api label:bug author:@me`."""
    params = drop_none(q=query, sort=sort, order=order if sort else None)
    page, total = await paged(
        ctx, "/search/issues", IssueSummary, limit=limit, cursor=cursor, params=params, key="items"
    )
    return SearchPage(items=page.items, next_cursor=page.next_cursor, total_count=total)


@module.tool(read_only=True)
async def list_issues(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    state: Literal["open", "closed", "all"] = "open",
    labels: Annotated[Labels | None, Field(description="all of these labels")] = None,
    assignee: Annotated[str | None, Field(max_length=100, description="a login, `none` or `*`")] = None,
    creator: Annotated[str | None, Field(max_length=100)] = None,
    since: Annotated[datetime | None, Field(description="updated at or after")] = None,
    sort: Literal["created", "updated", "comments"] = "updated",
    limit: Limit = 30,
    cursor: Cursor = None,
) -> Page[IssueSummary]:
    """A repository's issues (pull requests left out), most recently updated first by default."""
    params = drop_none(
        state=state,
        labels=",".join(labels) if labels else None,
        assignee=assignee,
        creator=creator,
        since=iso(since),
        sort=sort,
        direction="desc",
    )
    with not_found(f"repository {owner}/{repo}"):
        page, _ = await paged(
            ctx,
            repo_url(owner, repo, "issues"),
            IssueSummary,
            limit=limit,
            cursor=cursor,
            params=params,
            keep=lambda issue: not issue.is_pull_request,
        )
    return page


@module.tool(read_only=True)
async def get_issue(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    issue_number: Number,
    limit: Annotated[int, Field(ge=1, le=100, description="comments to return (1-100)")] = 30,
    cursor: Cursor = None,
) -> IssueDetail:
    """One issue (or a pull request's conversation): body, labels, assignees and its comments, oldest first."""
    with not_found(f"issue #{issue_number} in {owner}/{repo}"):
        body = await ctx.http.get_json(repo_url(owner, repo, "issues", str(issue_number)))
        issue = ctx.http.parse(IssueDetail, body)
        page, _ = await paged(
            ctx, repo_url(owner, repo, "issues", str(issue_number), "comments"), Comment, limit=limit, cursor=cursor
        )
    issue.thread, issue.next_cursor = page.items, page.next_cursor
    return issue


@module.tool()
async def create_issue(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    title: Title,
    body: Text | None = None,
    labels: Labels | None = None,
    assignees: Logins | None = None,
    milestone: Annotated[int | None, Field(ge=1, description="milestone number")] = None,
) -> IssueSummary:
    """Open an issue with optional body, labels, assignees and milestone."""
    payload = drop_none(title=title, body=body, labels=labels, assignees=assignees, milestone=milestone)
    with not_found(f"repository {owner}/{repo}"):
        created = await ctx.http.post_json(repo_url(owner, repo, "issues"), payload)
    return ctx.http.parse(IssueSummary, created)


@module.tool(idempotent=True)
async def update_issue(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    issue_number: Number,
    title: Title | None = None,
    body: Text | None = None,
    state: Literal["open", "closed"] | None = None,
    state_reason: Literal["completed", "not_planned", "duplicate", "reopened"] | None = None,
    labels: Annotated[Labels | None, Field(description="replaces all labels; [] removes them")] = None,
    assignees: Annotated[Logins | None, Field(description="replaces all assignees; [] removes them")] = None,
    milestone: Annotated[int | None, Field(ge=0, description="milestone number; 0 removes it")] = None,
) -> IssueSummary:
    """Change an issue (or a pull request's labels and assignees): title, body, state, labels, assignees, milestone."""
    payload: dict[str, Any] = drop_none(
        title=title, body=body, state=state, state_reason=state_reason, labels=labels, assignees=assignees
    )
    if milestone is not None:
        payload["milestone"] = milestone or None
    if not payload:
        raise InvalidArgument(f"{SERVICE}: nothing to change; give at least one field", {"service": SERVICE})
    with not_found(f"issue #{issue_number} in {owner}/{repo}"):
        updated = await ctx.http.patch_json(repo_url(owner, repo, "issues", str(issue_number)), payload)
    return ctx.http.parse(IssueSummary, updated)


@module.tool()
async def add_issue_comment(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    issue_number: Annotated[Number, Field(description="issue or pull request number")],
    body: Annotated[str, Field(min_length=1, max_length=65_536, description="Markdown")],
) -> Comment:
    """Comment on an issue or on a pull request's conversation."""
    with not_found(f"issue #{issue_number} in {owner}/{repo}"):
        created = await ctx.http.post_json(
            repo_url(owner, repo, "issues", str(issue_number), "comments"), {"body": body}
        )
    return ctx.http.parse(Comment, created)
