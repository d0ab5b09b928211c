"""Tools that read a repository's files: contents, the tree, code search."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated

from pydantic import BaseModel, Field

from mcpist.modules import InvalidArgument, Unavailable
from mcpist.upstream import Cursor, Limit, MaxChars, Offset, clip, decode_cursor, encode_cursor

from ._common import (
    SERVICE,
    FilePath,
    Owner,
    Query,
    Ref,
    Repo,
    SearchPage,
    is_sha,
    not_found,
    paged,
    repo_url,
    seg,
    slashed,
)
from ._models import CodeHit, DirEntry, FileContent, Tree, TreeEntry
from ._module import Ctx, module

MAX_FILE_BYTES = 10_000_000
TreeLimit = Annotated[int, Field(ge=1, le=1000, description="How many paths to return at most (1-1000).")]
_KIND = {"blob": "file", "tree": "dir", "commit": "submodule"}


class _Item(BaseModel):
    type: str
    path: str
    sha: str | None = None
    size: int | None = None
    html_url: str | None = None
    content: str | None = None
    encoding: str | None = None
    target: str | None = None


class _Blob(BaseModel):
    content: str
    encoding: str


class _TreeBody(BaseModel):
    sha: str
    truncated: bool = False
    tree: list[TreeEntry]


@module.tool(read_only=True)
async def get_file_contents(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    path: Annotated[FilePath | None, Field(description="file or directory; omit for the root")] = None,
    ref: Annotated[Ref | None, Field(description="branch, tag or SHA; default: the default branch")] = None,
    offset: Offset = 0,
    max_chars: MaxChars = 20_000,
) -> FileContent:
    """A file's text, `max_chars` at a time from `offset`, or a directory's entries."""
    if path is None:
        with not_found(f"{ref or 'default branch'} of {owner}/{repo}"):
            body = await ctx.http.get_json(repo_url(owner, repo, "git", "trees", seg(ref or "HEAD")))
        tree = ctx.http.parse(_TreeBody, body)
        entries = [DirEntry(name=e.path, path=e.path, type=_KIND.get(e.type, e.type), size=e.size) for e in tree.tree]
        return FileContent(path="", type="dir", sha=tree.sha, entries=entries)
    with not_found(f"{path} in {owner}/{repo}{f' at {ref}' if ref else ''}"):
        body = await ctx.http.get_json(
            repo_url(owner, repo, "contents", slashed(path)), params={"ref": ref} if ref else None
        )
    if isinstance(body, list):
        entries = ctx.http.parse_list(DirEntry, body)
        return FileContent(path=path, type="dir", entries=entries)
    item = ctx.http.parse(_Item, body)
    found = FileContent(path=item.path, type=item.type, sha=item.sha, size=item.size, html_url=item.html_url)
    if item.type == "symlink":
        found.target = item.target
    if item.type != "file":
        return found
    data = await _file_bytes(ctx, owner, repo, item)
    text = _text(data)
    if text is None:
        found.binary = True
        return found
    found.content = clip(text, offset=offset, max_chars=max_chars)
    return found


async def _file_bytes(ctx: Ctx, owner: str, repo: str, item: _Item) -> bytes:
    content, encoding = item.content, item.encoding
    if encoding == "none" or (not content and (item.size or 0) > 0):
        # the contents API leaves files over 1 MB empty; the blob API serves them up to 100 MB
        if (item.size or 0) > MAX_FILE_BYTES or item.sha is None:
            raise InvalidArgument(
                f"{SERVICE}: {item.path} is {item.size} bytes; MCPist reads files up to {MAX_FILE_BYTES} bytes",
                {"service": SERVICE, "field": "path"},
            )
        blob = ctx.http.parse(_Blob, await ctx.http.get_json(repo_url(owner, repo, "git", "blobs", seg(item.sha))))
        content, encoding = blob.content, blob.encoding
    if not content:
        return b""
    if encoding not in ("base64", None):
        return content.encode()
    try:
        return base64.b64decode(content)
    except (binascii.Error, ValueError):
        raise Unavailable(f"{SERVICE} answered a file that is not valid base64", {"service": SERVICE}) from None


def _text(data: bytes) -> str | None:
    """The file as text, or None for a binary file (a NUL early on, or not UTF-8)."""
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


@module.tool(read_only=True)
async def get_repository_tree(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    ref: Annotated[Ref | None, Field(description="branch, tag or SHA; default: the default branch")] = None,
    path: Annotated[FilePath | None, Field(description="only entries under this directory")] = None,
    limit: TreeLimit = 300,
    cursor: Cursor = None,
) -> Tree:
    """Every file and directory path of a repository (recursively), `limit` at a time, optionally under `path`."""
    start, tree_ref = 0, ref or "HEAD"
    if cursor is not None:
        # the cursor pins the tree it started on, so a push in between cannot shift the offsets
        start, tree_ref = _resume(cursor)
    with not_found(f"{ref or 'default branch'} of {owner}/{repo}"):
        body = await ctx.http.get_json(repo_url(owner, repo, "git", "trees", seg(tree_ref)), params={"recursive": "1"})
    tree = ctx.http.parse(_TreeBody, body)
    prefix = f"{path}/" if path else ""
    entries = [e for e in tree.tree if e.path.startswith(prefix)]
    end = start + limit
    following = encode_cursor({"sha": tree.sha, "k": end}) if end < len(entries) else None
    return Tree(sha=tree.sha, items=entries[start:end], next_cursor=following, upstream_truncated=tree.truncated)


def _resume(cursor: str) -> tuple[int, str]:
    state = decode_cursor(cursor, service=SERVICE)
    offset, sha = state.get("k"), state.get("sha")
    if not (isinstance(offset, int) and offset >= 0 and isinstance(sha, str) and is_sha(sha)):
        raise InvalidArgument(
            f"{SERVICE}: cursor is not one this tool returned; pass next_cursor unchanged, or omit it to start over",
            {"service": SERVICE, "field": "cursor"},
        )
    return offset, sha


@module.tool(read_only=True)
async def search_code(ctx: Ctx, query: Query, limit: Limit = 20, cursor: Cursor = None) -> SearchPage[CodeHit]:
    """Search code on the default branches, e.g. `parse_config repo:acme/api language:go`, with matching lines."""
    page, total = await paged(
        ctx,
        "/search/code",
        CodeHit,
        limit=limit,
        cursor=cursor,
        params={"q": query},
        key="items",
        headers={"Accept": "application/vnd.github.text-match+json"},
    )
    return SearchPage(items=page.items, next_cursor=page.next_cursor, total_count=total)
