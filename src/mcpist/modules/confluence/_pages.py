"""Pages: read (Markdown or storage, in windows), tree, history, create, update (whole or one section), move,
delete."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcpist.modules import Conflict
from mcpist.upstream import Cursor, Limit, MaxChars, Offset, Page, clip

from ._browse import page_summary
from ._common import (
    Body,
    Format,
    PageId,
    Site,
    SiteName,
    SpaceRef,
    as_storage,
    as_text,
    paged,
    read_page,
    resolve_site,
    space_id,
    storage_of,
    v2,
    version_of,
    web_url,
    webui_of,
)
from ._models import Deleted, PageDoc, PageTree, PageWritten, TreeNode, Version
from ._module import Ctx, module
from ._sections import splice_section

Title = Annotated[str, Field(min_length=1, max_length=255)]
Message = Annotated[str | None, Field(max_length=500, description="the version's change note")]


def _written(where: Site, raw: dict[str, Any]) -> PageWritten:
    return PageWritten(
        id=str(raw.get("id")),
        title=raw.get("title"),
        space_id=raw.get("spaceId"),
        parent_id=raw.get("parentId"),
        version=version_of(raw),
        url=web_url(where, webui_of(raw)),
    )


@module.tool(read_only=True)
async def get_page(
    ctx: Ctx,
    page_id: PageId,
    format: Format = "markdown",
    offset: Offset = 0,
    max_chars: MaxChars = 20_000,
    version: Annotated[int | None, Field(ge=1, description="an older version to read")] = None,
    site: SiteName = None,
) -> PageDoc:
    """A page's title, version and body as Markdown (or storage XHTML), in windows of `max_chars`."""
    where = resolve_site(ctx, site)
    raw = await read_page(ctx, where, page_id, **({"version": version} if version else {}))
    window = clip(as_text(storage_of(raw), format), offset=offset, max_chars=max_chars)
    summary = page_summary(where, raw)
    return PageDoc(
        **summary.model_dump(),
        format=format,
        body=window.text,
        offset=window.offset,
        total_chars=window.total_chars,
        truncated=window.truncated,
        next_offset=window.next_offset,
    )


@module.tool(read_only=True)
async def get_page_tree(
    ctx: Ctx, page_id: PageId, limit: Limit = 50, cursor: Cursor = None, site: SiteName = None
) -> PageTree:
    """A page's ancestors (root first, with titles) and its child pages."""
    where = resolve_site(ctx, site)
    ancestors: list[TreeNode] = []
    if cursor is None:
        body = ctx.http.parse(
            dict[str, Any], await ctx.http.get_json(v2(where, f"/pages/{page_id}/ancestors"), params={"limit": 250})
        )
        found = ctx.http.parse(list[dict[str, Any]], body.get("results", []))
        ancestors = [TreeNode(id=str(a.get("id")), type=a.get("type")) for a in found]
        page_ids = [a.id for a in ancestors if a.type in (None, "page")]
        if page_ids:
            # the ancestors endpoint gives ids only; one bulk read names them
            named = ctx.http.parse(
                dict[str, Any],
                await ctx.http.get_json(v2(where, "/pages"), params={"id": page_ids, "limit": len(page_ids)}),
            )
            titles = {str(p.get("id")): p.get("title") for p in named.get("results", []) if isinstance(p, dict)}
            ancestors = [a.model_copy(update={"title": titles.get(a.id)}) for a in ancestors]

    def child(raw: dict[str, Any]) -> TreeNode:
        return TreeNode(id=str(raw.get("id")), title=raw.get("title"), type="page")

    children = await paged(ctx, v2(where, f"/pages/{page_id}/children"), child, limit=limit, cursor=cursor)
    return PageTree(page_id=page_id, ancestors=ancestors, children=children.items, next_cursor=children.next_cursor)


@module.tool(read_only=True)
async def get_page_history(
    ctx: Ctx, page_id: PageId, limit: Limit = 25, cursor: Cursor = None, site: SiteName = None
) -> Page[Version]:
    """A page's versions, newest first: number, date, author id and change note."""
    where = resolve_site(ctx, site)

    def convert(raw: dict[str, Any]) -> Version:
        return Version(
            number=int(raw.get("number") or 0),
            created=raw.get("createdAt"),
            author_id=raw.get("authorId"),
            message=raw.get("message") or None,
            minor_edit=raw.get("minorEdit"),
        )

    path = v2(where, f"/pages/{page_id}/versions")
    return await paged(ctx, path, convert, limit=limit, cursor=cursor, params={"sort": "-modified-date"})


@module.tool()
async def create_page(
    ctx: Ctx,
    space: SpaceRef,
    title: Title,
    body: Body = "",
    format: Format = "markdown",
    parent_id: Annotated[str | None, Field(pattern=r"^[0-9]{1,20}$", description="default: the home page")] = None,
    site: SiteName = None,
) -> PageWritten:
    """Create a page in a space (under `parent_id`, else under the space's home page)."""
    where = resolve_site(ctx, site)
    sid = await space_id(ctx, where, space)
    payload: dict[str, Any] = {
        "spaceId": sid,
        "status": "current",
        "title": title,
        "body": {"representation": "storage", "value": as_storage(body, format)},
    }
    if parent_id:
        payload["parentId"] = parent_id
    raw = ctx.http.parse(dict[str, Any], await ctx.http.post_json(v2(where, "/pages"), json=payload))
    return _written(where, raw)


async def _write(
    ctx: Ctx,
    where: Site,
    page_id: str,
    current: dict[str, Any],
    *,
    storage: str,
    title: str | None = None,
    parent_id: str | None = None,
    message: str | None = None,
) -> PageWritten:
    """PUT the page as the next version after `current` (as read from `page_id`); a 409 (someone saved
    meanwhile) names both versions."""
    read = version_of(current) or 0
    payload: dict[str, Any] = {
        "id": page_id,
        "status": "current",
        "title": title or current.get("title") or "",
        "body": {"representation": "storage", "value": storage},
        "version": {"number": read + 1, **({"message": message} if message else {})},
    }
    if parent_id:
        payload["parentId"] = parent_id
    try:
        raw = await ctx.http.put_json(v2(where, f"/pages/{payload['id']}"), json=payload)
    except Conflict as exc:
        raise Conflict(
            f"confluence: page {payload['id']} changed after version {read} was read (writing {read + 1} was "
            f"refused: {exc.message}); read it again and reapply the change",
            {**exc.data, "read_version": read, "attempted_version": read + 1},
        ) from None
    return _written(where, ctx.http.parse(dict[str, Any], raw))


def _check_version(page_id: str, current: dict[str, Any], expected: int | None) -> None:
    now = version_of(current)
    if expected is not None and now is not None and now != expected:
        raise Conflict(
            f"confluence: page {page_id} is at version {now}, not version {expected} that you read; read it again "
            "and reapply the change",
            {"service": "confluence", "read_version": expected, "current_version": now},
        )


@module.tool()
async def update_page(
    ctx: Ctx,
    page_id: PageId,
    version: Annotated[int, Field(ge=1, description="the version you read (get_page); a stale one is CONFLICT")],
    body: Body | None = None,
    format: Format = "markdown",
    title: Title | None = None,
    message: Message = None,
    site: SiteName = None,
) -> PageWritten:
    """Replace a page's body and/or title, as the version after the one you read."""
    where = resolve_site(ctx, site)
    current = await read_page(ctx, where, page_id)
    _check_version(page_id, current, version)
    storage = as_storage(body, format) if body is not None else storage_of(current)
    return await _write(ctx, where, page_id, current, storage=storage, title=title, message=message)


@module.tool()
async def update_page_section(
    ctx: Ctx,
    page_id: PageId,
    heading: Annotated[str, Field(min_length=1, max_length=255, description="the section's heading text")],
    body: Annotated[str, Field(max_length=200_000, description="the section's new content, without its heading")],
    format: Format = "markdown",
    version: Annotated[int | None, Field(ge=1, description="the version you read, to refuse a stale edit")] = None,
    message: Message = None,
    site: SiteName = None,
) -> PageWritten:
    """Replace what is under one heading (up to the next heading of its level), keeping the rest of the page."""
    where = resolve_site(ctx, site)
    current = await read_page(ctx, where, page_id)
    _check_version(page_id, current, version)
    storage = splice_section(storage_of(current), heading, as_storage(body, format))
    return await _write(ctx, where, page_id, current, storage=storage, message=message)


@module.tool()
async def move_page(
    ctx: Ctx,
    page_id: PageId,
    parent_id: Annotated[str, Field(pattern=r"^[0-9]{1,20}$", description="the new parent, in the same space")],
    site: SiteName = None,
) -> PageWritten:
    """Move a page (and its children) under another page of the same space."""
    where = resolve_site(ctx, site)
    current = await read_page(ctx, where, page_id)
    return await _write(ctx, where, page_id, current, storage=storage_of(current), parent_id=parent_id)


@module.tool(destructive=True)
async def delete_page(
    ctx: Ctx,
    page_id: PageId,
    purge: Annotated[bool, Field(description="remove a page already in the trash for good")] = False,
    site: SiteName = None,
) -> Deleted:
    """Move a page to the space's trash (or, with `purge`, delete a trashed page for good)."""
    where = resolve_site(ctx, site)
    await ctx.http.request("DELETE", v2(where, f"/pages/{page_id}"), params={"purge": "true"} if purge else None)
    return Deleted(id=page_id, status="purged" if purge else "trashed")
