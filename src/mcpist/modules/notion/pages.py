"""Reading pages: properties as plain values, content as Markdown, one property in full; the page resource."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote, unquote

from pydantic import Field

from mcpist.modules import NotFound
from mcpist.upstream import Cursor, MaxChars, Offset, body_cursor, clip, collect

from ._module import Ctx, Id, Limit, module, notion_id
from .common import an_object, page_info, truncated_properties
from .markdown import blocks_to_markdown
from .models import PageContent, PropertyItems
from .properties import plain, user_label, value_of
from .tree import read_tree

_LISTED = frozenset({"title", "rich_text", "relation", "people", "rollup"})


@module.tool(read_only=True)
async def get_page(
    ctx: Ctx,
    page_id: Id,
    offset: Offset = 0,
    max_chars: MaxChars = 20_000,
    content: Annotated[bool, Field(description="false: properties only")] = True,
) -> PageContent:
    """A page: title, url, parent, properties as plain values, and its content as Markdown (read on with offset)."""
    pid = notion_id(page_id, "page_id")
    page = an_object(ctx, await ctx.http.get_json(f"/v1/pages/{pid}"))
    info = page_info(page)
    notes = truncated_properties(page)
    if not content:
        return PageContent(**info.model_dump(), notes=notes or None)
    tree = await read_tree(ctx.http, pid, max_blocks=ctx.settings.max_blocks)
    if not tree.complete:
        notes.append(f"the page has more than {tree.count} blocks; the content stops there")
    text = blocks_to_markdown(tree.blocks)
    return PageContent(**info.model_dump(), content=clip(text, offset=offset, max_chars=max_chars), notes=notes or None)


@module.resource("notion://pages/{page_id}", tool="get_page", mime_type="text/markdown")
async def page_markdown(ctx: Ctx, page_id: str) -> str:
    """A Notion page as Markdown: its title, its properties as a list, then its content."""
    page = await get_page(ctx, page_id=page_id, max_chars=200_000)
    lines = [f"# {page.title}", ""]
    for name, value in (page.properties or {}).items():
        shown = ", ".join(value) if isinstance(value, list) else "" if value is None else str(value)
        lines.append(f"- {name}: {shown}")
    if page.properties:
        lines.append("")
    if page.content is not None:
        lines.append(page.content.text)
        if page.content.truncated:
            lines += ["", f"<!-- {page.content.total_chars - len(page.content.text)} more characters: get_page -->"]
    return "\n".join(lines)


@module.tool(read_only=True)
async def get_page_property(
    ctx: Ctx,
    page_id: Id,
    property: Annotated[str, Field(min_length=1, max_length=200, description="property name or id")],
    limit: Limit = 100,
    cursor: Cursor = None,
) -> PropertyItems:
    """One page property in full, for values get_page cuts at 25 (relations, people, long text, rollups)."""
    pid = notion_id(page_id, "page_id")
    page = an_object(ctx, await ctx.http.get_json(f"/v1/pages/{pid}"))
    found = _find(page, property)
    if found is None:
        known = ", ".join(sorted(page.get("properties") or {}))
        raise NotFound(f"notion: the page has no property {property!r} (properties: {known})")
    name, prop = found
    kind = str(prop.get("type"))
    path = f"/v1/pages/{pid}/properties/{quote(unquote(str(prop.get('id'))), safe='')}"
    if kind not in _LISTED:
        item = an_object(ctx, await ctx.http.get_json(path))
        return PropertyItems(name=name, type=kind, value=value_of(item))

    async def fetch(token: str | None) -> tuple[list[Any], str | None]:
        params: dict[str, Any] = {"page_size": min(limit, 100)}
        if token:
            params["start_cursor"] = token
        body = await ctx.http.get_json(path, params=params)
        items = body.get("results") if isinstance(body, dict) else None
        if not isinstance(items, list):  # a rollup that is not an array answers with one item
            return [value_of(body)] if isinstance(body, dict) else [], None
        return [_piece(item) for item in items if isinstance(item, dict)], body_cursor(body)

    page_of = await collect(fetch, limit, cursor=cursor, service="notion")
    pieces = page_of.items
    value: Any = "".join(str(p) for p in pieces) if kind in ("title", "rich_text") else _flat(pieces)
    return PropertyItems(name=name, type=kind, value=value, next_cursor=page_of.next_cursor)


def _find(page: dict[str, Any], wanted: str) -> tuple[str, dict[str, Any]] | None:
    properties = page.get("properties") or {}
    for name, prop in properties.items():
        if isinstance(prop, dict) and (name == wanted or unquote(str(prop.get("id"))) == unquote(wanted)):
            return name, prop
    return None


def _piece(item: dict[str, Any]) -> Any:
    kind = item.get("type")
    value = item.get(str(kind))
    if kind in ("title", "rich_text"):
        return plain([value]) if isinstance(value, dict) else ""
    if kind == "relation":
        return str(value.get("id")) if isinstance(value, dict) else ""
    if kind == "people":
        return user_label(value)
    return value_of(item)


def _flat(pieces: list[Any]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        out.extend(piece if isinstance(piece, list) else [] if piece is None else [str(piece)])
    return out
