"""A page's block tree read (bounded, children fetched level by level) and blocks written under a parent.

Writing sends one level per request: the 2025-09-03 API takes at most 100 blocks and two levels of nesting
in one append, and the ids it answers with are where the next level goes. Tables and column lists are the
exception: Notion creates them only with their rows and columns, so those travel inline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio

from mcpist.upstream import ServiceClient, body_cursor

from .markdown import Block
from .markdown.canonical import MEDIA_TYPES, OWN_PAGES, TEXT_TYPES, is_synced_copy
from .markdown.wire import MAX_ITEMS, update_body, wire_block

PAGE_SIZE = 100
CREATABLE = (TEXT_TYPES - {"template"}) | MEDIA_TYPES | {
    "code", "equation", "divider", "breadcrumb", "table_of_contents", "table", "table_row", "column_list", "column",
    "bookmark", "embed", "link_to_page", "synced_block",
}  # fmt: skip
_FETCHERS = 4


@dataclass
class Tree:
    blocks: list[dict[str, Any]]
    complete: bool
    count: int


async def children_page(http: ServiceClient, block_id: str, cursor: str | None, size: int) -> tuple[Any, str | None]:
    """One page of a block's children: (the results, Notion's next cursor)."""
    params: dict[str, Any] = {"page_size": size}
    if cursor:
        params["start_cursor"] = cursor
    body = await http.get_json(f"/v1/blocks/{block_id}/children", params=params)
    results = body.get("results") if isinstance(body, dict) else None
    return (results if isinstance(results, list) else []), body_cursor(body)


async def read_tree(http: ServiceClient, root_id: str, *, max_blocks: int) -> Tree:
    """Every block under `root_id` (children attached as `children`), until `max_blocks` have been read."""
    budget = [max_blocks]
    top, complete = await _all_children(http, root_id, budget)
    pending = [block for block in top if _wants_children(block)]
    limiter = anyio.CapacityLimiter(_FETCHERS)
    while pending and complete:
        following: list[dict[str, Any]] = []
        outcomes: list[bool] = []
        async with anyio.create_task_group() as group:
            for block in pending:
                group.start_soon(_load, http, block, budget, limiter, following, outcomes)
        complete = all(outcomes)
        pending = following
    return Tree(top, complete and not pending, max_blocks - budget[0])


async def _load(
    http: ServiceClient,
    block: dict[str, Any],
    budget: list[int],
    limiter: anyio.CapacityLimiter,
    following: list[dict[str, Any]],
    outcomes: list[bool],
) -> None:
    async with limiter:
        children, done = await _all_children(http, str(block["id"]), budget)
    block["children"] = children
    outcomes.append(done)
    following.extend(child for child in children if _wants_children(child))


def _wants_children(block: dict[str, Any]) -> bool:
    return bool(block.get("has_children")) and block.get("type") not in OWN_PAGES and "id" in block


async def _all_children(http: ServiceClient, block_id: str, budget: list[int]) -> tuple[list[dict[str, Any]], bool]:
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        if budget[0] <= 0:
            return found, False
        results, cursor = await children_page(http, block_id, cursor, PAGE_SIZE)
        blocks = [block for block in results if isinstance(block, dict) and isinstance(block.get("type"), str)]
        budget[0] -= len(blocks)
        found.extend(blocks)
        if cursor is None:
            return found, True


@dataclass
class _Entry:
    request: dict[str, Any]
    later: list[Block] = field(default_factory=list)
    columns: list[list[Block]] | None = None


class Writer:
    """Creates, changes and deletes blocks, counting what it did and noting what it could not do exactly."""

    def __init__(self, http: ServiceClient) -> None:
        self.http = http
        self.added = self.updated = self.deleted = 0
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    async def append(self, parent_id: str, blocks: list[Block], after: str | None = None) -> list[str]:
        """Create `blocks` (canonical, with children) under `parent_id`, after `after` or at the end.

        Returns the ids of the top-level blocks created, in order.
        """
        entries = [entry for block in blocks for entry in self._entries(block)]
        ids: list[str] = []
        for start in range(0, len(entries), MAX_ITEMS):
            chunk = entries[start : start + MAX_ITEMS]
            body: dict[str, Any] = {"children": [entry.request for entry in chunk]}
            if after is not None:
                body["after"] = after
            answer = await self.http.patch_json(f"/v1/blocks/{parent_id}/children", body)
            results = answer.get("results") if isinstance(answer, dict) else None
            made = [str(r.get("id")) for r in (results if isinstance(results, list) else []) if isinstance(r, dict)]
            made = made[: len(chunk)]
            if len(made) < len(chunk):
                self.note("Notion did not answer with every block it created; their children were not written")
            for entry, block_id in zip(chunk, made, strict=False):
                self.added += 1 + _inline_count(entry.request)
                if entry.columns is not None:
                    await self._fill_columns(block_id, str(entry.request["type"]), entry.columns)
                if entry.later:
                    await self.append(block_id, entry.later)
            ids.extend(made)
            after = made[-1] if made else after
        return ids

    async def update(self, block_id: str, block: Block) -> None:
        await self.http.patch_json(f"/v1/blocks/{block_id}", update_body(block), retry=True)  # the same content again
        self.updated += 1

    async def delete(self, block_id: str) -> None:
        await self.http.delete_json(f"/v1/blocks/{block_id}", retry=True)
        self.deleted += 1

    def _entries(self, block: Block) -> list[_Entry]:
        block = self._creatable(block)
        if block["type"] == "skip":
            return []
        children = [] if is_synced_copy(block) else list(block.get("children", []))
        wired = wire_block({k: v for k, v in block.items() if k != "children"})
        entries = [_Entry(request) for request in wired]
        last = entries[-1]
        kind = block["type"]
        if kind == "table":
            last.request[kind]["children"] = [wire_block(row)[0] for row in children[:MAX_ITEMS]]
            last.later = children[MAX_ITEMS:]
        elif kind == "column_list":
            columns = [c for c in children if c["type"] == "column"] or [{"type": "column", "column": {}}]
            inline = [self._column(column) for column in columns]
            last.request[kind]["children"] = [request for request, _ in inline]
            last.columns = [content for _, content in inline]
        elif kind == "column":
            request, content = self._column(block)
            last.request[kind] = request[kind]
            last.columns = [content]
        else:
            last.later = children
        return entries

    def _column(self, column: Block) -> tuple[dict[str, Any], list[Block]]:
        """A column's request with its first 100 blocks inline (Notion refuses an empty column), and its blocks."""
        content = [c for c in map(self._creatable, column.get("children", [])) if c["type"] != "skip"]
        content = content or [{"type": "paragraph", "paragraph": {"rich_text": []}}]
        request = wire_block({"type": "column", "column": column["column"]})[0]
        request["column"]["children"] = [wire_block(_head(c))[0] for c in content[:MAX_ITEMS]]
        return request, content

    async def _fill_columns(self, block_id: str, kind: str, columns: list[list[Block]]) -> None:
        """Write what did not travel inline: blocks past a column's first 100, and their children.

        `block_id` is the column list created (whose columns are read back for their ids) or the column.
        """
        if not any(len(c) > MAX_ITEMS or any(b.get("children") for b in c[:MAX_ITEMS]) for c in columns):
            return
        made: list[Any] = [{"id": block_id}]
        if kind == "column_list":
            made, _ = await children_page(self.http, block_id, None, PAGE_SIZE)
        for column, blocks in zip(made, columns, strict=False):
            column_id = str(column.get("id"))
            sent, _ = await children_page(self.http, column_id, None, min(len(blocks), MAX_ITEMS))
            for child, block in zip(sent, blocks[:MAX_ITEMS], strict=False):
                if block.get("children") and not is_synced_copy(block):
                    await self.append(str(child.get("id")), block["children"])
            if len(blocks) > MAX_ITEMS:
                await self.append(column_id, blocks[MAX_ITEMS:], after=str(sent[-1].get("id")) if sent else None)

    def _creatable(self, block: Block) -> Block:
        """The block as something the API can create, noting what had to change."""
        kind = block["type"]
        if kind in OWN_PAGES and not block.get("id"):
            self.note("links to child pages without a page id in their URL were left out")
            return {"type": "skip"}
        if kind in OWN_PAGES:
            self.note("child pages and databases were linked (link_to_page), not copied: create pages with create_page")
            target = "page_id" if kind == "child_page" else "database_id"
            return {"type": "link_to_page", "link_to_page": {"type": target, target: block.get("id")}}
        if kind in MEDIA_TYPES and block[kind].get("type") == "file":
            self.note("Notion-hosted files were linked by their temporary URL, which expires within hours")
            data = {**block[kind], "type": "external", "external": block[kind]["file"]}
            del data["file"]
            return {**block, kind: data}
        if kind == "link_preview":
            self.note("link previews were written as bookmarks")
            return {"type": "bookmark", "bookmark": {"url": block[kind]["url"]}}
        if kind not in CREATABLE:
            self.note(f"{kind} blocks cannot be created through Notion's API and were left out")
            return {"type": "skip"}
        return block


def _head(block: Block) -> Block:
    return {k: v for k, v in block.items() if k != "children"}


def _inline_count(request: dict[str, Any]) -> int:
    payload = request.get(str(request.get("type")), {})
    children = payload.get("children", []) if isinstance(payload, dict) else []
    return sum(1 + _inline_count(child) for child in children)
