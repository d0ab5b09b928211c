"""Tools for the account, repositories, branches and releases."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mcpist.upstream import Cursor, Limit, Page, collect, link_next

from ._common import (
    PER_PAGE,
    SERVICE,
    BranchName,
    Owner,
    Query,
    Ref,
    Repo,
    SearchPage,
    conflict_if_exists,
    drop_none,
    not_found,
    paged,
    repo_url,
    seg,
)
from ._models import Branch, Me, NewBranch, Release, Repository, RepositoryDetail, Sha
from ._module import Ctx, module


@module.tool(read_only=True)
async def get_me(ctx: Ctx) -> Me:
    """The signed-in GitHub user of this account: login, name, email and the token's OAuth scopes."""
    response = await ctx.http.request("GET", "/user")
    me = ctx.http.parse(Me, ctx.http.json(response))
    scopes = response.headers.get("x-oauth-scopes")
    me.scopes = [s.strip() for s in scopes.split(",") if s.strip()] if scopes is not None else None
    me.account = ctx.account.name if ctx.account is not None else None
    return me


@module.tool(read_only=True)
async def list_repositories(
    ctx: Ctx,
    owner: Annotated[Owner | None, Field(description="an org or user; omit for the account's own")] = None,
    sort: Literal["created", "updated", "pushed", "full_name"] = "pushed",
    limit: Limit = 30,
    cursor: Cursor = None,
) -> Page[Repository]:
    """Repositories the account can access (its own, its orgs', collaborations), or those of `owner`."""
    params = {"sort": sort, "direction": "asc" if sort == "full_name" else "desc"}
    if owner is None:
        page, _ = await paged(ctx, "/user/repos", Repository, limit=limit, cursor=cursor, params=params)
        return page

    async def fetch(url: str | None) -> tuple[list[Repository], str | None]:
        if url is not None:
            response = await ctx.http.request("GET", url)
        else:
            first = {**params, "per_page": max(limit, PER_PAGE)}
            # an org lists its private repositories to members; a user only has the public list
            response = await ctx.http.request("GET", f"/orgs/{seg(owner)}/repos", params=first, ok=(404,))
            if response.status_code == 404:
                response = await ctx.http.request("GET", f"/users/{seg(owner)}/repos", params=first)
        return ctx.http.parse_list(Repository, ctx.http.json(response)), link_next(response)

    with not_found(f"user or organization {owner}"):
        return await collect(fetch, limit, cursor=cursor, service=SERVICE)


@module.tool(read_only=True)
async def get_repository(ctx: Ctx, owner: Owner, repo: Repo) -> RepositoryDetail:
    """One repository: description, default branch, visibility, topics, counts and whether you can push."""
    with not_found(f"repository {owner}/{repo}"):
        body = await ctx.http.get_json(repo_url(owner, repo))
    return ctx.http.parse(RepositoryDetail, body)


@module.tool(read_only=True)
async def search_repositories(
    ctx: Ctx,
    query: Query,
    sort: Literal["stars", "forks", "updated"] | None = None,
    limit: Limit = 30,
    cursor: Cursor = None,
) -> SearchPage[Repository]:
    """Search repositories, e.g. `language:python topic:mcp stars:>100` or `org:acme in:name api`."""
    params = drop_none(q=query, sort=sort)
    page, total = await paged(
        ctx, "/search/repositories", Repository, limit=limit, cursor=cursor, params=params, key="items"
    )
    return SearchPage(items=page.items, next_cursor=page.next_cursor, total_count=total)


@module.tool(read_only=True)
async def list_branches(ctx: Ctx, owner: Owner, repo: Repo, limit: Limit = 30, cursor: Cursor = None) -> Page[Branch]:
    """The repository's branches with their head commit SHA and protection."""
    with not_found(f"repository {owner}/{repo}"):
        page, _ = await paged(ctx, repo_url(owner, repo, "branches"), Branch, limit=limit, cursor=cursor)
    return page


@module.tool(idempotent=False)
async def create_branch(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    branch: BranchName,
    from_ref: Annotated[Ref | None, Field(description="where it starts; default: the default branch")] = None,
) -> NewBranch:
    """Create a branch at another branch, tag or commit (default: the head of the default branch)."""
    start = from_ref or "HEAD"
    with not_found(f"{start} in {owner}/{repo}"):
        # one call resolves any branch, tag, short or full SHA (and HEAD) to a commit; per_page bounds its file list
        commit = await ctx.http.get_json(repo_url(owner, repo, "commits", seg(start)), params={"per_page": 1})
    sha = ctx.http.parse(Sha, commit).sha
    with conflict_if_exists(), not_found(f"repository {owner}/{repo}"):
        await ctx.http.post_json(repo_url(owner, repo, "git", "refs"), {"ref": f"refs/heads/{branch}", "sha": sha})
    return NewBranch(branch=branch, sha=sha, from_ref=start)


@module.tool(read_only=True)
async def list_releases(ctx: Ctx, owner: Owner, repo: Repo, limit: Limit = 10, cursor: Cursor = None) -> Page[Release]:
    """Releases, newest first, with tag, state, date and the start of their notes."""
    with not_found(f"repository {owner}/{repo}"):
        page, _ = await paged(ctx, repo_url(owner, repo, "releases"), Release, limit=limit, cursor=cursor)
    return page


@module.tool()
async def create_release(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    tag: Annotated[str, Field(min_length=1, max_length=255, description="tag to publish; created if missing")],
    name: Annotated[str | None, Field(max_length=1000)] = None,
    body: Annotated[str | None, Field(max_length=125_000, description="release notes, Markdown")] = None,
    target: Annotated[Ref | None, Field(description="branch or SHA for a new tag; default: default branch")] = None,
    draft: bool = False,
    prerelease: bool = False,
    generate_notes: Annotated[bool, Field(description="let GitHub write notes from merged PRs")] = False,
) -> Release:
    """Publish a release (or a draft) for a tag, creating the tag at `target` when it does not exist."""
    payload = drop_none(
        tag_name=tag,
        name=name,
        body=body,
        target_commitish=target,
        draft=draft,
        prerelease=prerelease,
        generate_release_notes=generate_notes,
    )
    with conflict_if_exists(), not_found(f"repository {owner}/{repo}"):
        created = await ctx.http.post_json(repo_url(owner, repo, "releases"), payload)
    return ctx.http.parse(Release, created)
