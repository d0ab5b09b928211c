"""Page content as blocks: list them with ids, append Markdown, edit or delete one, rewrite a page's content."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpist.modules import InvalidArgument, MCPistError
from mcpist.upstream import Cursor, Page, collect

from ._module import Ctx, Id, Limit, module, notion_id
from .common import an_object, partly_done
from .markdown import Block, blocks_to_markdown, canonical_block, head, markdown_to_blocks, parse_inline, render_head
from .markdown.canonical import TEXT_TYPES
from .markdown.inline_render import Unrepresentable, render_inline
from .markdown.parse import split_cells
from .models import BlockInfo, ContentWrite, Trashed
from .sync import sync
from .tree import Writer, children_page, read_tree

Markdown = Annotated[str, Field(max_length=500_000, description="Markdown (see the module docs)")]


class Edit(BaseModel):
    old: str = Field(min_length=1, description="exact text of get_page's Markdown to find")
    new: str = Field(description="what replaces it")
    replace_all: bool = Field(default=False, description="every occurrence, not just one")


def block_info(block: dict[str, Any]) -> BlockInfo:
    canonical = canonical_block(block)
    if canonical["type"] == "table_row":
        try:
            cells = [render_inline(cell, line=True, table=True) for cell in canonical["table_row"]["cells"]]
            markdown = "| " + " | ".join(cells) + " |"
        except Unrepresentable:
            markdown = render_head(canonical)
    else:
        markdown = render_head(canonical)
    return BlockInfo(
        id=str(block.get("id")), type=canonical["type"], markdown=markdown, has_children=bool(block.get("has_children"))
    )


@module.tool(read_only=True)
async def get_block_children(ctx: Ctx, block_id: Id, limit: Limit = 50, cursor: Cursor = None) -> Page[BlockInfo]:
    """The blocks directly inside a page or block, each with its id and Markdown, for block-level edits."""
    bid = notion_id(block_id, "block_id")

    async def fetch(token: str | None) -> tuple[list[BlockInfo], str | None]:
        results, following = await children_page(ctx.http, bid, token, min(limit, 100))
        return [block_info(b) for b in results if isinstance(b, dict) and "type" in b], following

    return await collect(fetch, limit, cursor=cursor, service="notion")


@module.tool()
async def append_blocks(
    ctx: Ctx,
    block_id: Id,
    markdown: Markdown,
    after: Annotated[Id | None, Field(description="id of the child block to insert after; default: at the end")] = None,
) -> ContentWrite:
    """Add Markdown content at the end of a page or block, or after one of its child blocks."""
    bid = notion_id(block_id, "block_id")
    writer = Writer(ctx.http)
    try:
        await writer.append(bid, markdown_to_blocks(markdown), after=notion_id(after, "after") if after else None)
    except MCPistError as exc:
        raise partly_done(exc, f"{writer.added} blocks were written") from None
    return ContentWrite(id=bid, added=writer.added, notes=writer.notes or None)


@module.tool(idempotent=True)
async def update_block(
    ctx: Ctx,
    block_id: Id,
    markdown: Annotated[str | None, Field(max_length=200_000, description="the block's new Markdown")] = None,
    checked: Annotated[bool | None, Field(description="tick or untick a to-do")] = None,
) -> BlockInfo:
    """Change one block's text (as Markdown of the same kind: `## x` for a heading) or tick a to-do."""
    bid = notion_id(block_id, "block_id")
    block = an_object(ctx, await ctx.http.get_json(f"/v1/blocks/{bid}"))
    current = head(canonical_block(block))
    kind = current["type"]
    new = _edited(current, markdown) if markdown is not None else current
    if checked is not None:
        if kind != "to_do":
            raise InvalidArgument(f"notion: block {bid} is a {kind}, not a to_do", {"field": "checked"})
        new = {**new, "to_do": {**new["to_do"], "checked": checked}}
    writer = Writer(ctx.http)
    await writer.update(bid, new)
    return block_info({**block, **new})


def _edited(current: Block, markdown: str) -> Block:
    kind = current["type"]
    if kind == "table_row":
        cells = [parse_inline(cell) for cell in split_cells(markdown.strip())]
        if len(cells) != len(current[kind]["cells"]):
            raise InvalidArgument(f"notion: the row has {len(current[kind]['cells'])} cells", {"field": "markdown"})
        return {"type": kind, kind: {"cells": cells}}
    parsed = markdown_to_blocks(markdown)
    if len(parsed) != 1 or parsed[0].get("children"):
        raise InvalidArgument(
            "notion: update_block takes the Markdown of one block without children; use append_blocks or "
            "update_page_content for more",
            {"field": "markdown"},
        )
    new = parsed[0]
    if new["type"] == kind:
        return new
    if new["type"] == "paragraph" and kind in TEXT_TYPES:
        return {"type": kind, kind: {**current[kind], "rich_text": new["paragraph"]["rich_text"]}}
    raise InvalidArgument(
        f"notion: the block is a {kind} and the Markdown reads as a {new['type']}; Notion cannot change a block's "
        "type: delete it and append the new block",
        {"field": "markdown"},
    )


@module.tool(destructive=True, idempotent=True)
async def delete_block(ctx: Ctx, block_id: Id) -> Trashed:
    """Delete a block and everything inside it (a child page's block moves that page to the trash)."""
    bid = notion_id(block_id, "block_id")
    block = an_object(ctx, await ctx.http.delete_json(f"/v1/blocks/{bid}", retry=True))
    return Trashed(id=str(block["id"]), in_trash=bool(block.get("in_trash", block.get("archived", True))))


@module.tool(destructive=True)
async def update_page_content(
    ctx: Ctx,
    page_id: Id,
    mode: Annotated[
        Literal["replace", "find_replace", "append"],
        Field(description="replace: markdown becomes the content; find_replace: apply edits; append: add markdown"),
    ],
    markdown: Markdown | None = None,
    edits: Annotated[list[Edit] | None, Field(max_length=100)] = None,
    allow_deleting_content: Annotated[bool, Field(description="let child pages/databases be deleted")] = False,
) -> ContentWrite:
    """Rewrite a page's content from Markdown; unchanged blocks keep their ids and comments."""
    pid = notion_id(page_id, "page_id")
    writer = Writer(ctx.http)
    if mode == "append" or mode == "replace":
        if markdown is None:
            raise InvalidArgument(f"notion: mode {mode} needs markdown", {"field": "markdown"})
    elif not edits:
        raise InvalidArgument("notion: mode find_replace needs edits", {"field": "edits"})
    try:
        if mode == "append":
            assert markdown is not None
            await writer.append(pid, markdown_to_blocks(markdown))
        else:
            tree = await read_tree(ctx.http, pid, max_blocks=ctx.settings.max_blocks)
            if not tree.complete:
                raise InvalidArgument(
                    f"notion: the page has more than {tree.count} blocks; edit it with get_block_children, "
                    "update_block and append_blocks"
                )
            text = markdown if mode == "replace" else _apply(blocks_to_markdown(tree.blocks), edits or [])
            assert text is not None
            await sync(writer, pid, tree.blocks, markdown_to_blocks(text), allow_deleting=allow_deleting_content)
    except MCPistError as exc:
        if writer.added or writer.updated or writer.deleted:
            done = f"{writer.added} blocks were added, {writer.updated} changed and {writer.deleted} deleted"
            raise partly_done(exc, done) from None
        raise
    return ContentWrite(
        id=pid, added=writer.added, updated=writer.updated, deleted=writer.deleted, notes=writer.notes or None
    )


def _apply(text: str, edits: list[Edit]) -> str:
    for index, edit in enumerate(edits):
        found = text.count(edit.old)
        if found == 0:
            raise InvalidArgument(
                f"notion: edits[{index}].old is not in the page; copy it exactly from get_page's Markdown",
                {"field": f"edits.{index}.old"},
            )
        if found > 1 and not edit.replace_all:
            raise InvalidArgument(
                f"notion: edits[{index}].old occurs {found} times; make it longer or set replace_all",
                {"field": f"edits.{index}.old"},
            )
        text = text.replace(edit.old, edit.new) if edit.replace_all else text.replace(edit.old, edit.new, 1)
    return text
