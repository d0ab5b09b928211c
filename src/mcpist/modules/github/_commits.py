"""Tools for history: commits, one commit's changes, comparisons; and the file-diff paging they share with PRs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from mcpist.modules import NotFound
from mcpist.upstream import Cursor, Limit, Page, clip, collect, link_next

from ._common import (
    PER_PAGE,
    SERVICE,
    FilePath,
    Owner,
    PatchChars,
    PatchOffset,
    Ref,
    Repo,
    drop_none,
    iso,
    not_found,
    paged,
    repo_url,
    seg,
)
from ._models import CommitDetail, CommitSummary, Comparison, FileDiff
from ._module import Ctx, module

MAX_FILE_PAGES = 30  # GitHub lists at most 3000 changed files, 100 a page
COMPARE_COMMITS = 50
OnePath = Annotated[FilePath | None, Field(description="only this changed file (to read its whole patch)")]


def windowed(diff: FileDiff, offset: int, max_chars: int) -> FileDiff:
    """The diff with its patch cut to `max_chars` from `offset` (0: patch left out, its length kept)."""
    if diff.patch is None:
        return diff
    diff.patch_chars = len(diff.patch)
    if max_chars == 0:
        diff.patch = None
        return diff
    part = clip(diff.patch, offset=offset, max_chars=max_chars)
    diff.patch, diff.patch_next_offset = part.text, part.next_offset
    return diff


async def changed_files(
    ctx: Ctx,
    url: str,
    files_of: Callable[[Any], Any],
    *,
    limit: int,
    cursor: str | None,
    path: str | None,
    patch_offset: int,
    max_patch_chars: int,
) -> tuple[Page[FileDiff], Any]:
    """A page of the files a commit or pull request changes, with patches windowed, and the last body read.

    With `path`, only that file, its patch read from `patch_offset`.

    Raises:
        NotFound: `path` is not among the changed files.
    """
    last: list[Any] = [None]
    if path is not None:
        next_url: str | None = url
        params: dict[str, Any] | None = {"per_page": 100}
        for _ in range(MAX_FILE_PAGES):
            if next_url is None:
                break
            response = await ctx.http.request("GET", next_url, params=params)
            last[0] = ctx.http.json(response)
            for diff in ctx.http.parse_list(FileDiff, files_of(last[0])):
                if path in (diff.path, diff.previous_path):
                    return Page(items=[windowed(diff, patch_offset, max_patch_chars or 20_000)]), last[0]
            next_url, params = link_next(response), None
        raise NotFound(f"{SERVICE}: {path} is not among the changed files", {"service": SERVICE, "field": "path"})

    async def fetch(state: str | None) -> tuple[list[FileDiff], str | None]:
        response = await ctx.http.request(
            "GET", state or url, params=None if state else {"per_page": max(limit, PER_PAGE)}
        )
        last[0] = ctx.http.json(response)
        diffs = ctx.http.parse_list(FileDiff, files_of(last[0]))
        return [windowed(d, 0, max_patch_chars) for d in diffs], link_next(response)

    page = await collect(fetch, limit, cursor=cursor, service=SERVICE)
    return page, last[0]


def _files(body: Any) -> Any:
    return body.get("files", []) if isinstance(body, dict) else body


@module.tool(read_only=True)
async def list_commits(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    ref: Annotated[Ref | None, Field(description="branch, tag or SHA to start from; default: default branch")] = None,
    path: Annotated[FilePath | None, Field(description="only commits touching this path")] = None,
    author: Annotated[str | None, Field(max_length=100, description="login or email")] = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: Limit = 30,
    cursor: Cursor = None,
) -> Page[CommitSummary]:
    """Commits reachable from a ref, newest first: SHA, first line of the message, author, date."""
    params = drop_none(
        sha=ref,
        path=path,
        author=author,
        since=iso(since),
        until=iso(until),
    )
    with not_found(f"{ref or 'default branch'} of {owner}/{repo}"):
        page, _ = await paged(
            ctx, repo_url(owner, repo, "commits"), CommitSummary, limit=limit, cursor=cursor, params=params
        )
    return page


@module.tool(read_only=True)
async def get_commit(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    ref: Annotated[Ref, Field(description="commit SHA, branch or tag")],
    path: OnePath = None,
    patch_offset: PatchOffset = 0,
    max_patch_chars: PatchChars = 3000,
    limit: Annotated[int, Field(ge=1, le=100, description="changed files to return (1-100)")] = 30,
    cursor: Cursor = None,
) -> CommitDetail:
    """One commit: full message, author, parents, stats and its changed files with (clipped) patches."""
    with not_found(f"commit {ref} of {owner}/{repo}"):
        page, body = await changed_files(
            ctx,
            repo_url(owner, repo, "commits", seg(ref)),
            _files,
            limit=limit,
            cursor=cursor,
            path=path,
            patch_offset=patch_offset,
            max_patch_chars=max_patch_chars,
        )
    detail = ctx.http.parse(CommitDetail, body)
    detail.files, detail.next_cursor = page.items, page.next_cursor
    return detail


@module.tool(read_only=True)
async def compare_commits(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    base: Ref,
    head: Ref,
    path: OnePath = None,
    patch_offset: PatchOffset = 0,
    max_patch_chars: PatchChars = 2000,
    limit: Annotated[int, Field(ge=1, le=300, description="changed files to return (1-300)")] = 30,
    cursor: Cursor = None,
) -> Comparison:
    """What `head` has that `base` lacks: ahead/behind counts, the newest commits and the changed files."""
    with not_found(f"{base} or {head} in {owner}/{repo}"):
        body = await ctx.http.get_json(repo_url(owner, repo, "compare", seg(f"{base}...{head}")))
    found = ctx.http.parse(Comparison, body)
    found.commits = found.commits[-COMPARE_COMMITS:]
    if path is not None:
        match = [d for d in found.files if path in (d.path, d.previous_path)]
        if not match:
            raise NotFound(f"{SERVICE}: {path} is not among the changed files", {"service": SERVICE, "field": "path"})
        found.files = [windowed(match[0], patch_offset, max_patch_chars or 20_000)]
        return found
    files = found.files

    async def fetch(state: str | None) -> tuple[list[FileDiff], str | None]:
        # GitHub answers every changed file (up to 300) at once; the cursor is an offset into them
        return [windowed(d, 0, max_patch_chars) for d in files], None

    page = await collect(fetch, limit, cursor=cursor, service=SERVICE)
    found.files, found.next_cursor = page.items, page.next_cursor
    return found
