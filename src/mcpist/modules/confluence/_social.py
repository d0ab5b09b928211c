"""Around a page: comments (footer and inline), labels and attachments."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.modules import InvalidArgument
from mcpist.upstream import Cursor, Limit, Page, collect

from ._common import (
    SERVICE,
    Format,
    PageId,
    Site,
    SiteName,
    as_storage,
    as_text,
    next_cursor,
    obj,
    paged,
    resolve_site,
    v1,
    v2,
    version_of,
    web_url,
    webui_of,
)
from ._models import Attachment, Comment, Labels
from ._module import Ctx, module

COMMENT_CHARS = 4000
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
LabelName = Annotated[str, Field(pattern=r"^[^\s/]{1,255}$", description="a label (no spaces)")]


def _comment(where: Site, kind: Literal["footer", "inline"], raw: dict[str, Any], fmt: str) -> Comment:
    body = obj(raw.get("body"))
    storage = str(obj(body.get("storage")).get("value") or "")
    text = as_text(storage, fmt)
    props = obj(raw.get("properties"))
    version = obj(raw.get("version"))
    return Comment(
        id=str(raw.get("id")),
        kind=kind,
        author_id=version.get("authorId"),
        created=version.get("createdAt"),
        version=version_of(raw),
        body=text[:COMMENT_CHARS],
        truncated=len(text) > COMMENT_CHARS,
        resolution=raw.get("resolutionStatus"),
        selection=props.get("inlineOriginalSelection") or props.get("inline-original-selection"),
        url=web_url(where, webui_of(raw)),
    )


@module.tool(read_only=True)
async def get_comments(
    ctx: Ctx,
    page_id: PageId,
    kind: Annotated[Literal["all", "footer", "inline"], Field(description="all: footer comments first")] = "all",
    format: Format = "markdown",
    limit: Limit = 25,
    cursor: Cursor = None,
    site: SiteName = None,
) -> Page[Comment]:
    """A page's comments, footer and inline (with the text they highlight), oldest first."""
    where = resolve_site(ctx, site)
    kinds: list[Literal["footer", "inline"]] = ["footer", "inline"] if kind == "all" else [kind]

    async def fetch(state: str | None) -> tuple[list[Comment], str | None]:
        # the state is "<kind>:<upstream cursor>", so one cursor walks footer comments, then inline ones
        which, _, upstream = (state or f"{kinds[0]}:").partition(":")
        if which not in kinds:
            raise InvalidArgument("confluence: this cursor belongs to another listing", {"field": "cursor"})
        params: dict[str, Any] = {"body-format": "storage", "limit": 50, **({"cursor": upstream} if upstream else {})}
        path = v2(where, f"/pages/{page_id}/{which}-comments")
        body = ctx.http.parse(dict[str, Any], await ctx.http.get_json(path, params=params))
        results = ctx.http.parse(list[dict[str, Any]], body.get("results", []))  # as `paged` reads a listing
        items = [_comment(where, which, r, format) for r in results]
        following = next_cursor(body)
        if following:
            return items, f"{which}:{following}"
        rest = kinds[kinds.index(which) + 1 :]
        return items, f"{rest[0]}:" if rest else None

    return await collect(fetch, limit, cursor=cursor, service=SERVICE)


@module.tool()
async def add_comment(
    ctx: Ctx,
    page_id: PageId,
    body: Annotated[str, Field(min_length=1, max_length=50_000)],
    format: Format = "markdown",
    reply_to: Annotated[
        str | None, Field(pattern=r"^[0-9]{1,20}$", description="a footer comment's id, to reply to it")
    ] = None,
    site: SiteName = None,
) -> Comment:
    """Add a footer comment to a page, or a reply to one of its footer comments."""
    where = resolve_site(ctx, site)
    payload: dict[str, Any] = {"body": {"representation": "storage", "value": as_storage(body, format)}}
    payload.update({"parentCommentId": reply_to} if reply_to else {"pageId": page_id})
    raw = ctx.http.parse(dict[str, Any], await ctx.http.post_json(v2(where, "/footer-comments"), json=payload))
    raw.setdefault("body", payload["body"] | {"storage": payload["body"]})
    return _comment(where, "footer", raw, "storage" if format == "storage" else "markdown")


@module.tool(idempotent=True)
async def manage_labels(
    ctx: Ctx,
    page_id: PageId,
    add: Annotated[list[LabelName], Field(max_length=50)] = [],  # noqa: B006 - pydantic copies defaults
    remove: Annotated[list[LabelName], Field(max_length=50)] = [],  # noqa: B006
    site: SiteName = None,
) -> Labels:
    """Add and/or remove a page's labels; returns the labels it has afterwards."""
    where = resolve_site(ctx, site)
    base = v1(where, f"/content/{page_id}/label")
    if add:
        await ctx.http.post_json(base, json=[{"prefix": "global", "name": name.lower()} for name in add])
    for name in remove:
        await ctx.http.request("DELETE", f"{base}/{name.lower()}", ok=(404,))  # already gone is fine
    body = ctx.http.parse(dict[str, Any], await ctx.http.get_json(base, params={"limit": 200}))
    found = ctx.http.parse(list[dict[str, Any]], body.get("results", []))
    return Labels(page_id=page_id, labels=[str(label.get("name")) for label in found])


@module.tool(read_only=True)
async def list_attachments(
    ctx: Ctx,
    page_id: PageId,
    filename: Annotated[str | None, Field(max_length=255)] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
    site: SiteName = None,
) -> Page[Attachment]:
    """A page's attachments: name, media type, size, version and download link."""
    where = resolve_site(ctx, site)

    def convert(raw: dict[str, Any]) -> Attachment:
        links = obj(raw.get("_links"))
        return Attachment(
            id=str(raw.get("id")),
            title=raw.get("title"),
            media_type=raw.get("mediaType"),
            size=raw.get("fileSize"),
            version=version_of(raw),
            created=raw.get("createdAt"),
            comment=raw.get("comment") or None,
            download_url=web_url(where, raw.get("downloadLink") or links.get("download")),
            url=web_url(where, raw.get("webuiLink") or links.get("webui")),
        )

    params = {"filename": filename} if filename else None
    return await paged(
        ctx, v2(where, f"/pages/{page_id}/attachments"), convert, limit=limit, cursor=cursor, params=params
    )


@module.tool()
async def upload_attachment(
    ctx: Ctx,
    page_id: PageId,
    filename: Annotated[str, Field(pattern=r"^[^/\\\x00-\x1f]{1,255}$")],
    content_base64: Annotated[str, Field(max_length=7_000_000, description="the file, base64; at most 5 MB")],
    media_type: Annotated[str, Field(max_length=100, pattern=r"^[\w.+-]+/[\w.+-]+$")] = "application/octet-stream",
    comment: Annotated[str | None, Field(max_length=500)] = None,
    site: SiteName = None,
) -> Attachment:
    """Attach a small file to a page (a new version if the page has one of that name)."""
    try:
        data = base64.b64decode(content_base64, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidArgument("confluence: content_base64 is not base64", {"field": "content_base64"}) from None
    if len(data) > MAX_UPLOAD_BYTES:
        raise InvalidArgument(f"confluence: the file is over {MAX_UPLOAD_BYTES} bytes", {"field": "content_base64"})
    where = resolve_site(ctx, site)
    # v1 only (no v2 upload yet); Confluence refuses multipart posts without this XSRF opt-out header
    response = await ctx.http.request(
        "PUT",
        v1(where, f"/content/{page_id}/child/attachment"),
        files={"file": (filename, data, media_type)},
        data={"minorEdit": "true", **({"comment": comment} if comment else {})},
        headers={"X-Atlassian-Token": "no-check"},
    )
    body = ctx.http.parse(dict[str, Any], ctx.http.json(response))
    first = ctx.http.parse(list[dict[str, Any]], body.get("results", [body]))[0]
    extensions = obj(first.get("extensions"))
    links = obj(first.get("_links"))
    return Attachment(
        id=str(first.get("id")),
        title=first.get("title"),
        media_type=extensions.get("mediaType") or media_type,
        size=extensions.get("fileSize") if isinstance(extensions.get("fileSize"), int) else len(data),
        version=version_of(first),
        comment=extensions.get("comment") or comment,
        download_url=web_url(where, links.get("download")),
        url=web_url(where, links.get("webui")),
    )
