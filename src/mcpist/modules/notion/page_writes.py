"""Writing pages: create (with Markdown content), properties, move, trash, and duplicate."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcpist.modules import InvalidArgument, MCPistError

from ._module import Ctx, Id, module, notion_id
from .common import an_object, data_source, database_parent, one_parent, page_info, partly_done
from .markdown import Block, canonical_blocks, markdown_to_blocks
from .markdown.wire import text_items
from .models import ContentWrite, PageInfo, Trashed
from .properties import build_values, copy_values, title_of
from .tree import Writer, read_tree

PropertyInput = str | int | float | bool | list[str] | dict[str, Any] | None
Properties = Annotated[
    dict[str, PropertyInput], Field(description="property name -> plain value (see the module docs); null clears")
]
Markdown = Annotated[str, Field(max_length=500_000, description="Markdown (see the module docs)")]
Title = Annotated[str, Field(min_length=1, max_length=2000)]
Emoji = Annotated[str, Field(min_length=1, max_length=16, description="an emoji, e.g. 📌")]


@module.tool()
async def create_page(
    ctx: Ctx,
    title: Title,
    parent_page_id: Id | None = None,
    data_source_id: Id | None = None,
    properties: Properties | None = None,
    content: Markdown | None = None,
) -> ContentWrite:
    """Create a page under a page, or as a row of a data source with property values, its content from Markdown."""
    kind, parent_id = one_parent(parent_page_id, data_source_id)
    if kind == "page":
        if properties:
            raise InvalidArgument("notion: a page under a page has only a title; use data_source_id for properties")
        parent: dict[str, Any] = {"type": "page_id", "page_id": parent_id}
        values: dict[str, Any] = {"title": {"title": text_items(title)}}
    else:
        source = await data_source(ctx, parent_id)
        schema = source.get("properties") or {}
        given = {k: v for k, v in (properties or {}).items() if (schema.get(k) or {}).get("type") != "title"}
        values = build_values({**given, "title": title}, schema)
        parent = database_parent(source)
    page = an_object(ctx, await ctx.http.post_json("/v1/pages", {"parent": parent, "properties": values}))
    return await _fill(ctx, page, markdown_to_blocks(content) if content else [])


async def _fill(ctx: Ctx, page: dict[str, Any], blocks: list[Block], notes: list[str] | None = None) -> ContentWrite:
    writer = Writer(ctx.http)
    try:
        await writer.append(str(page["id"]), blocks)
    except MCPistError as exc:
        done = f"the page was created ({page.get('url') or page['id']}) with {writer.added} blocks"
        raise partly_done(exc, done) from None
    notes = [*(notes or []), *writer.notes]
    return ContentWrite(id=str(page["id"]), url=page.get("url"), added=writer.added, notes=notes or None)


@module.tool(idempotent=True)
async def update_page_properties(
    ctx: Ctx, page_id: Id, properties: Properties | None = None, icon: Emoji | None = None
) -> PageInfo:
    """Set a page's property values (the key "title" reaches its title) or its emoji icon."""
    pid = notion_id(page_id, "page_id")
    if not properties and icon is None:
        raise InvalidArgument("notion: give properties or icon to change", {"field": "properties"})
    body: dict[str, Any] = {}
    if properties:
        page = an_object(ctx, await ctx.http.get_json(f"/v1/pages/{pid}"))
        body["properties"] = build_values(properties, page.get("properties") or {})
    if icon is not None:
        body["icon"] = {"emoji": icon}
    return page_info(an_object(ctx, await ctx.http.patch_json(f"/v1/pages/{pid}", body, retry=True)))


@module.tool(idempotent=True)
async def move_page(
    ctx: Ctx, page_id: Id, parent_page_id: Id | None = None, data_source_id: Id | None = None
) -> PageInfo:
    """Move a page under another page or into a data source (a database's table)."""
    pid = notion_id(page_id, "page_id")
    kind, parent_id = one_parent(parent_page_id, data_source_id)
    if kind == "page":
        parent: dict[str, Any] = {"type": "page_id", "page_id": parent_id}
    else:
        parent = database_parent(await data_source(ctx, parent_id))
    moved = await ctx.http.post_json(f"/v1/pages/{pid}/move", {"parent": parent}, retry=True)  # idempotent
    return page_info(an_object(ctx, moved))


@module.tool(destructive=True, idempotent=True)
async def archive_page(
    ctx: Ctx, page_id: Id, restore: Annotated[bool, Field(description="true: take it out of the trash")] = False
) -> Trashed:
    """Move a page (and everything in it) to the trash, or restore it from there."""
    pid = notion_id(page_id, "page_id")
    page = an_object(ctx, await ctx.http.patch_json(f"/v1/pages/{pid}", {"in_trash": not restore}, retry=True))
    return Trashed(id=str(page["id"]), in_trash=bool(page.get("in_trash", not restore)))


@module.tool()
async def duplicate_page(
    ctx: Ctx,
    page_id: Id,
    title: Title | None = None,
    parent_page_id: Id | None = None,
    data_source_id: Id | None = None,
) -> ContentWrite:
    """Copy a page (properties and content; child pages become links) next to it or under another parent."""
    pid = notion_id(page_id, "page_id")
    page = an_object(ctx, await ctx.http.get_json(f"/v1/pages/{pid}"))
    tree = await read_tree(ctx.http, pid, max_blocks=ctx.settings.max_blocks)
    if not tree.complete:
        raise InvalidArgument(f"notion: the page has more than {tree.count} blocks, too many to copy (max_blocks)")
    source_parent = page.get("parent") or {}
    schema = page.get("properties") or {}
    if parent_page_id is None and data_source_id is None:
        parent, same = _parent_like(source_parent), True
    elif parent_page_id is not None and data_source_id is None:
        parent, same = {"type": "page_id", "page_id": notion_id(parent_page_id, "parent_page_id")}, False
    else:
        _, target = one_parent(parent_page_id, data_source_id)
        source = await data_source(ctx, target)
        parent, same, schema = (
            database_parent(source),
            target == source_parent.get("data_source_id"),
            source["properties"],
        )
    in_database = "database_id" in parent
    values, notes = copy_values(page.get("properties"), title_only=not (same and in_database))
    values = {name: value for name, value in values.items() if "title" not in value}
    title_name = next((n for n, p in schema.items() if p.get("type") == "title"), "title") if in_database else "title"
    values[title_name] = {"title": text_items(title or title_of(page))}
    created = an_object(ctx, await ctx.http.post_json("/v1/pages", {"parent": parent, "properties": values}))
    return await _fill(ctx, created, canonical_blocks(tree.blocks), notes)


def _parent_like(parent: dict[str, Any]) -> dict[str, Any]:
    kind = parent.get("type")
    if kind == "page_id":
        return {"type": "page_id", "page_id": parent["page_id"]}
    if kind in ("data_source_id", "database_id") and parent.get("database_id"):
        return {"type": "database_id", "database_id": parent["database_id"]}
    if kind == "workspace":
        return {"type": "workspace", "workspace": True}
    raise InvalidArgument("notion: this page sits inside a block; give parent_page_id for the copy")
