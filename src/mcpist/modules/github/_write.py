"""Tools that change a repository's files: several files in one commit, and deleting a file."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcpist.modules import Conflict, InvalidArgument

from ._common import SERVICE, BranchName, FilePath, Owner, Repo, not_found, repo_url, seg, slashed
from ._models import Deleted, Sha, Written
from ._module import Ctx, module

Message = Annotated[str, Field(min_length=1, max_length=10_000, description="commit message")]


class FileChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: FilePath
    content: Annotated[str, Field(max_length=2_000_000, description="the whole new file")]
    encoding: Literal["utf-8", "base64"] = "utf-8"


class _Ref(BaseModel):
    object: Sha


class _Commit(BaseModel):
    sha: str
    tree: Sha
    html_url: str | None = None


class _TreeItem(BaseModel):
    path: str
    mode: str | None = None


class _Tree(BaseModel):
    sha: str
    truncated: bool = False
    tree: list[_TreeItem] = []


class _CommitRef(BaseModel):
    sha: str
    html_url: str | None = None


class _DeleteAnswer(BaseModel):
    commit: _CommitRef


@module.tool(idempotent=False)
async def write_files(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    branch: Annotated[BranchName, Field(description="an existing branch; see create_branch")],
    message: Message,
    files: Annotated[list[FileChange], Field(min_length=1, max_length=100)],
) -> Written:
    """Create or replace several files in ONE commit on top of a branch's head, then move the branch to it."""
    paths = [f.path for f in files]
    if not files or len(set(paths)) != len(paths):
        raise InvalidArgument(f"{SERVICE}: give each file once", {"service": SERVICE, "field": "files"})
    ref = seg(f"heads/{branch}")
    with not_found(f"branch {branch} of {owner}/{repo}"):
        head = ctx.http.parse(_Ref, await ctx.http.get_json(repo_url(owner, repo, "git", "ref", ref))).object.sha
    base = ctx.http.parse(_Commit, await ctx.http.get_json(repo_url(owner, repo, "git", "commits", seg(head))))
    modes = await _modes(ctx, owner, repo, base.tree.sha)
    entries = []
    for change in files:
        blob = await ctx.http.post_json(
            repo_url(owner, repo, "git", "blobs"), {"content": change.content, "encoding": change.encoding}
        )
        # an existing file keeps its mode, so rewriting a script does not drop its executable bit
        mode = modes.get(change.path, "100644")
        entries.append({"path": change.path, "mode": mode, "type": "blob", "sha": ctx.http.parse(Sha, blob).sha})
    tree = await ctx.http.post_json(
        repo_url(owner, repo, "git", "trees"), {"base_tree": base.tree.sha, "tree": entries}
    )
    tree_sha = ctx.http.parse(Sha, tree).sha
    if tree_sha == base.tree.sha:
        raise InvalidArgument(
            f"{SERVICE}: nothing to write: {branch} already holds this content; no commit was made",
            {"service": SERVICE, "field": "files"},
        )
    created = await ctx.http.post_json(
        repo_url(owner, repo, "git", "commits"), {"message": message, "tree": tree_sha, "parents": [head]}
    )
    commit = ctx.http.parse(_Commit, created)
    try:
        await ctx.http.patch_json(repo_url(owner, repo, "git", "refs", ref), {"sha": commit.sha, "force": False})
    except InvalidArgument as exc:
        if "fast forward" not in exc.message.lower():
            raise
        raise Conflict(
            f"{SERVICE}: {branch} moved while the files were written; nothing changed on it, call write_files again",
            exc.data,
        ) from None
    return Written(branch=branch, commit_sha=commit.sha, parent_sha=head, html_url=commit.html_url, paths=paths)


async def _modes(ctx: Ctx, owner: str, repo: str, tree_sha: str) -> dict[str, str]:
    body = await ctx.http.get_json(repo_url(owner, repo, "git", "trees", seg(tree_sha)), params={"recursive": "1"})
    return {item.path: item.mode for item in ctx.http.parse(_Tree, body).tree if item.mode}


@module.tool(destructive=True)
async def delete_file(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    path: FilePath,
    message: Message,
    branch: Annotated[BranchName | None, Field(description="default: the default branch")] = None,
) -> Deleted:
    """Delete one file in a commit of its own on a branch."""
    where = f"{path} in {owner}/{repo}{f' on {branch}' if branch else ''}"
    url = repo_url(owner, repo, "contents", slashed(path))
    with not_found(where):
        found = await ctx.http.get_json(url, params={"ref": branch} if branch else None)
    if isinstance(found, list):
        raise InvalidArgument(f"{SERVICE}: {path} is a directory; delete its files", {"service": SERVICE})
    sha = ctx.http.parse(Sha, found).sha
    payload = {"message": message, "sha": sha, **({"branch": branch} if branch else {})}
    with not_found(where):
        answer = await ctx.http.delete_json(url, payload)
    commit = ctx.http.parse(_DeleteAnswer, answer).commit
    return Deleted(path=path, commit_sha=commit.sha, html_url=commit.html_url)
