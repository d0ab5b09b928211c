"""Finding things: search (text or CQL), spaces, and the pages of a space."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.modules import InvalidArgument
from mcpist.upstream import Cursor, Limit, Page, collect

from ._common import (
    SERVICE,
    SiteName,
    SpaceRef,
    created_of,
    next_cursor,
    obj,
    paged,
    resolve_site,
    space_id,
    v1,
    v2,
    version_of,
    web_url,
    webui_of,
)
from ._models import PageSummary, SearchHit, SearchPage, Space
from ._module import Ctx, module


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@module.tool(read_only=True)
async def search(
    ctx: Ctx,
    text: Annotated[str | None, Field(min_length=1, max_length=500, description="words to find")] = None,
    cql: Annotated[
        str | None, Field(min_length=1, max_length=2000, description='CQL, e.g. type=page AND label="adr"')
    ] = None,
    space: Annotated[
        str | None, Field(pattern=r"^[A-Za-z0-9_~-]{1,255}$", description="with `text`: only this space key")
    ] = None,
    limit: Limit = 20,
    cursor: Cursor = None,
    site: SiteName = None,
) -> SearchPage:
    """Search pages, blog posts and attachments by `text` or with CQL; hits with excerpts and links."""
    if (text is None) == (cql is None):
        raise InvalidArgument("confluence: give `text` or `cql`, not both", {"service": SERVICE})
    if cql is None:
        cql = f"text ~ {_quote(text or '')}" + (f" AND space = {_quote(space)}" if space else "")
    where = resolve_site(ctx, site)
    total: list[int | None] = [None]

    def hit(raw: dict[str, Any]) -> SearchHit:
        content = obj(raw.get("content"))
        space_info = obj(content.get("space"))
        container = obj(raw.get("resultGlobalContainer"))
        return SearchHit(
            id=content.get("id"),
            type=content.get("type") or raw.get("entityType"),
            title=str(raw.get("title") or content.get("title") or ""),
            space_key=space_info.get("key"),
            space=container.get("title") or space_info.get("name"),
            excerpt=(raw.get("excerpt") or "")[:500] or None,
            updated=raw.get("lastModified"),
            url=web_url(where, raw.get("url")),
        )

    async def fetch(state: str | None) -> tuple[list[SearchHit], str | None]:
        params: dict[str, Any] = {"cql": cql, "limit": 25, "expand": ["content.space"]}
        if state:
            params["cursor"] = state
        body = ctx.http.parse(dict[str, Any], await ctx.http.get_json(v1(where, "/search"), params=params))
        size = body.get("totalSize")
        total[0] = size if isinstance(size, int) else None
        results = ctx.http.parse(list[dict[str, Any]], body.get("results", []))
        return [hit(r) for r in results], next_cursor(body)

    page = await collect(fetch, limit, cursor=cursor, service=SERVICE)
    return SearchPage(items=page.items, next_cursor=page.next_cursor, total=total[0], cql=cql)


@module.tool(read_only=True)
async def list_spaces(
    ctx: Ctx,
    keys: Annotated[list[Annotated[str, Field(max_length=255)]] | None, Field(max_length=50)] = None,
    type: Literal["global", "personal", "collaboration", "knowledge_base"] | None = None,
    limit: Limit = 50,
    cursor: Cursor = None,
    site: SiteName = None,
) -> Page[Space]:
    """The spaces the account can see: id, key, name, type and home page."""
    where = resolve_site(ctx, site)

    def convert(raw: dict[str, Any]) -> Space:
        return Space(
            id=str(raw.get("id")),
            key=raw.get("key"),
            name=raw.get("name"),
            type=raw.get("type"),
            status=raw.get("status"),
            homepage_id=raw.get("homepageId"),
            url=web_url(where, webui_of(raw)),
        )

    params = {k: v for k, v in {"keys": keys, "type": type, "sort": "key"}.items() if v}
    return await paged(ctx, v2(where, "/spaces"), convert, limit=limit, cursor=cursor, params=params)


def page_summary(where: Any, raw: dict[str, Any]) -> PageSummary:
    return PageSummary(
        id=str(raw.get("id")),
        title=raw.get("title"),
        space_id=raw.get("spaceId"),
        parent_id=raw.get("parentId"),
        status=raw.get("status"),
        version=version_of(raw),
        updated=created_of(raw),
        url=web_url(where, webui_of(raw)),
    )


@module.tool(read_only=True)
async def list_pages_in_space(
    ctx: Ctx,
    space: SpaceRef,
    title: Annotated[str | None, Field(max_length=255, description="only the page with this exact title")] = None,
    depth: Annotated[Literal["all", "root"], Field(description="root: the top-level pages only")] = "all",
    sort: Literal["title", "-modified-date", "created-date", "id"] = "title",
    limit: Limit = 50,
    cursor: Cursor = None,
    site: SiteName = None,
) -> Page[PageSummary]:
    """The pages of a space (by key or id), by title or most recently changed first."""
    where = resolve_site(ctx, site)
    sid = await space_id(ctx, where, space)
    params = {k: v for k, v in {"depth": depth, "sort": sort, "title": title}.items() if v}
    return await paged(
        ctx,
        v2(where, f"/spaces/{sid}/pages"),
        lambda raw: page_summary(where, raw),
        limit=limit,
        cursor=cursor,
        params=params,
    )
