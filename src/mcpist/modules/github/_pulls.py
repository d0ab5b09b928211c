"""Tools for pull requests: list, read with their diff, open, change, review, merge."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcpist.modules import InvalidArgument
from mcpist.upstream import Cursor, Limit, Page

from ._commits import OnePath, changed_files
from ._common import (
    SERVICE,
    BranchName,
    FilePath,
    Owner,
    PatchChars,
    PatchOffset,
    Repo,
    conflict_if_exists,
    drop_none,
    not_found,
    paged,
    repo_url,
)
from ._models import MergeResult, PullDetail, PullSummary, Review
from ._module import Ctx, module

PrNumber = Annotated[int, Field(ge=1, description="pull request number")]
Text = Annotated[str, Field(max_length=65_536, description="Markdown")]
Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$", description="full commit SHA")]


class LineComment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: FilePath
    line: Annotated[int, Field(ge=1, description="line in the file (new side unless side=LEFT)")]
    start_line: Annotated[int | None, Field(ge=1, description="first line of a multi-line comment")] = None
    side: Literal["RIGHT", "LEFT"] = "RIGHT"
    body: Annotated[str, Field(min_length=1, max_length=65_536)]


@module.tool(read_only=True)
async def list_pull_requests(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    state: Literal["open", "closed", "all"] = "open",
    base: Annotated[BranchName | None, Field(description="only PRs into this branch")] = None,
    head: Annotated[str | None, Field(max_length=300, description="only from this branch, as `user:branch`")] = None,
    sort: Literal["created", "updated", "popularity", "long-running"] = "updated",
    limit: Limit = 30,
    cursor: Cursor = None,
) -> Page[PullSummary]:
    """A repository's pull requests, most recently updated first by default."""
    params = drop_none(state=state, base=base, head=head, sort=sort, direction="desc")
    with not_found(f"repository {owner}/{repo}"):
        page, _ = await paged(
            ctx, repo_url(owner, repo, "pulls"), PullSummary, limit=limit, cursor=cursor, params=params
        )
    return page


@module.tool(read_only=True)
async def get_pull_request(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    pr_number: PrNumber,
    path: OnePath = None,
    patch_offset: PatchOffset = 0,
    max_patch_chars: PatchChars = 3000,
    limit: Annotated[int, Field(ge=1, le=100, description="changed files to return (1-100)")] = 30,
    cursor: Cursor = None,
) -> PullDetail:
    """One pull request: state, branches, mergeability, reviewers, counts, body and changed files with patches."""
    url = repo_url(owner, repo, "pulls", str(pr_number))
    with not_found(f"pull request #{pr_number} in {owner}/{repo}"):
        pull = ctx.http.parse(PullDetail, await ctx.http.get_json(url))
        page, _ = await changed_files(
            ctx,
            f"{url}/files",
            lambda body: body,
            limit=limit,
            cursor=cursor,
            path=path,
            patch_offset=patch_offset,
            max_patch_chars=max_patch_chars,
        )
    pull.files, pull.next_cursor = page.items, page.next_cursor
    return pull


@module.tool()
async def create_pull_request(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    title: Annotated[str, Field(min_length=1, max_length=256)],
    head: Annotated[
        str, Field(min_length=1, max_length=300, description="branch with the changes (fork: `user:branch`)")
    ],
    base: Annotated[BranchName, Field(description="branch to merge into")],
    body: Text | None = None,
    draft: bool = False,
) -> PullSummary:
    """Open a pull request from `head` into `base`."""
    payload = drop_none(title=title, head=head, base=base, body=body, draft=draft)
    with conflict_if_exists(), not_found(f"repository {owner}/{repo}"):
        created = await ctx.http.post_json(repo_url(owner, repo, "pulls"), payload)
    return ctx.http.parse(PullSummary, created)


@module.tool(idempotent=True)
async def update_pull_request(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    pr_number: PrNumber,
    title: Annotated[str | None, Field(min_length=1, max_length=256)] = None,
    body: Text | None = None,
    state: Literal["open", "closed"] | None = None,
    base: Annotated[BranchName | None, Field(description="retarget onto this branch")] = None,
    reviewers: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=100)]] | None,
        Field(max_length=15, description="logins to request a review from"),
    ] = None,
) -> PullSummary:
    """Change a pull request's title, body, state or base branch, and request reviewers."""
    payload = drop_none(title=title, body=body, state=state, base=base)
    if not payload and not reviewers:
        raise InvalidArgument(f"{SERVICE}: nothing to change; give at least one field", {"service": SERVICE})
    url = repo_url(owner, repo, "pulls", str(pr_number))
    with not_found(f"pull request #{pr_number} in {owner}/{repo}"):
        answer: Any = None
        if payload:
            answer = await ctx.http.patch_json(url, payload)
        if reviewers:
            answer = await ctx.http.post_json(f"{url}/requested_reviewers", {"reviewers": reviewers})
    return ctx.http.parse(PullSummary, answer)


@module.tool(destructive=True)
async def merge_pull_request(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    pr_number: PrNumber,
    method: Literal["merge", "squash", "rebase"] = "merge",
    commit_title: Annotated[str | None, Field(max_length=256)] = None,
    commit_message: Annotated[str | None, Field(max_length=65_536)] = None,
    sha: Annotated[Sha | None, Field(description="merge only if the head is still this commit")] = None,
) -> MergeResult:
    """Merge a pull request into its base branch (merge commit, squash or rebase)."""
    payload = drop_none(merge_method=method, commit_title=commit_title, commit_message=commit_message, sha=sha)
    with not_found(f"pull request #{pr_number} in {owner}/{repo}"):
        merged = await ctx.http.put_json(repo_url(owner, repo, "pulls", str(pr_number), "merge"), payload)
    return ctx.http.parse(MergeResult, merged)


@module.tool()
async def review_pull_request(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    pr_number: PrNumber,
    event: Annotated[Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"], Field(description="the verdict")],
    body: Annotated[Text | None, Field(description="the review's summary; needed unless approving")] = None,
    comments: Annotated[list[LineComment] | None, Field(max_length=100, description="line comments")] = None,
    commit_id: Annotated[Sha | None, Field(description="the head the review is of; default: the latest")] = None,
) -> Review:
    """Submit a review: a verdict, a summary and comments on lines of the changed files."""
    if event != "APPROVE" and not body and not (event == "COMMENT" and comments):
        raise InvalidArgument(f"{SERVICE}: {event} needs a body", {"service": SERVICE, "field": "body"})
    payload: dict[str, Any] = drop_none(event=event, body=body, commit_id=commit_id)
    if comments:
        payload["comments"] = [c.model_dump(exclude_none=True) for c in comments]
    with not_found(f"pull request #{pr_number} in {owner}/{repo}"):
        review = await ctx.http.post_json(repo_url(owner, repo, "pulls", str(pr_number), "reviews"), payload)
    return ctx.http.parse(Review, review)
