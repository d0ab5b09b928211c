"""Bring a parent's blocks in line with new content, touching only the blocks that differ.

Old and new blocks are compared as the Markdown each renders to; unchanged blocks stay (their ids,
comments and anything Markdown only shows, such as Notion-hosted files), a changed block of the same
type is edited in place, and the rest is inserted or deleted. Child pages and databases are deleted
only when the caller allows it, since deleting their block trashes the page.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from mcpist.modules import InvalidArgument

from .markdown import Block, canonical_block, head, render_block
from .markdown.canonical import MEDIA_TYPES, OWN_PAGES, TEXT_TYPES, is_synced_copy
from .tree import CREATABLE, Writer

_PATCHABLE = (TEXT_TYPES - {"template"}) | {
    "code", "equation", "bookmark", "embed", "table_row", "table", "table_of_contents",
} | MEDIA_TYPES  # fmt: skip


@dataclass
class Step:
    kind: str  # keep, update, descend, insert, delete, replace, anchor
    old: dict[str, Any] | None = None
    new: list[Block] = field(default_factory=list)
    children: list[Step] | None = None


async def sync(
    writer: Writer, parent_id: str, old: list[dict[str, Any]], new: list[Block], *, allow_deleting: bool
) -> None:
    """Make the children of `parent_id` (now `old`, as read with their children) say `new` (canonical).

    Raises:
        InvalidArgument: the change would delete a child page or database and `allow_deleting` is false.
    """
    steps = plan(old, new, writer)
    doomed = [title for step in _walk(steps) if step.kind in ("delete", "replace") for title in _own_pages(step.old)]
    if doomed and not allow_deleting:
        listed = ", ".join(repr(title) for title in doomed[:5])
        raise InvalidArgument(
            f"notion: the new content drops child pages or databases ({listed}); deleting their blocks moves them to "
            "the trash. Keep their lines, or pass allow_deleting_content=true",
            {"field": "allow_deleting_content"},
        )
    await _run(writer, parent_id, steps)


def plan(old: list[dict[str, Any]], new: list[Block], writer: Writer) -> list[Step]:
    """The steps from `old` (as read) to `new` (canonical): blocks matched by their Markdown, then by type."""
    before = [canonical_block(block) for block in old]
    seen = difflib.SequenceMatcher(
        None, [render_block(b) for b in before], [render_block(b) for b in new], autojunk=False
    )
    steps: list[Step] = []
    for tag, i1, i2, j1, j2 in seen.get_opcodes():
        if tag == "equal":
            steps += [Step("keep", old[i]) for i in range(i1, i2)]
        elif tag == "delete":
            steps += [Step("delete", old[i]) for i in range(i1, i2)]
        elif tag == "insert":
            steps.append(Step("insert", new=new[j1:j2]))
        else:
            steps += _by_type(old[i1:i2], before[i1:i2], new[j1:j2], writer)
    return _no_insert_at_top(steps, writer)


def _by_type(old: list[dict[str, Any]], before: list[Block], new: list[Block], writer: Writer) -> list[Step]:
    """Changed runs paired block by block where their types line up, so that a block is edited, not remade."""
    kinds = difflib.SequenceMatcher(None, [b["type"] for b in before], [b["type"] for b in new], autojunk=False)
    steps: list[Step] = []
    for _, i1, i2, j1, j2 in kinds.get_opcodes():
        pairs = min(i2 - i1, j2 - j1)
        steps += [_pair(old[i1 + k], before[i1 + k], new[j1 + k], writer) for k in range(pairs)]
        steps += [Step("delete", old[i]) for i in range(i1 + pairs, i2)]
        if j2 - j1 > pairs:
            steps.append(Step("insert", new=new[j1 + pairs : j2]))
    return steps


def _pair(raw: dict[str, Any], was: Block, now: Block, writer: Writer) -> Step:
    kind = was["type"]
    if kind != now["type"]:
        return Step("replace", raw, [now])
    if kind in OWN_PAGES:
        if was.get("id") != now.get("id"):
            return Step("replace", raw, [now])
        writer.note("a child page or database keeps its title here: rename it with update_page_properties")
        return Step("keep", raw)
    children: list[Step] | None = None
    if was.get("children", []) != now.get("children", []) and not is_synced_copy(was):
        children = plan(list(raw.get("children", [])), list(now.get("children", [])), writer)
    if head(was) == head(now):
        return Step("keep", raw) if children is None else Step("descend", raw, children=children)
    if kind in _PATCHABLE and _patchable(was, now):
        return Step("update", raw, [now], children)
    return Step("replace", raw, [now])


def _patchable(was: Block, now: Block) -> bool:
    kind = was["type"]
    if kind == "table":
        return bool(was[kind]["table_width"] == now[kind]["table_width"])
    if kind in MEDIA_TYPES:
        return bool(now[kind].get("type") == "external" and was[kind].get("type") == "external")
    return True


def _no_insert_at_top(steps: list[Step], writer: Writer) -> list[Step]:
    """Notion inserts only after a block: content meant to go before the first kept block goes after it."""
    lead = 0
    while lead < len(steps) and steps[lead].kind in ("insert", "delete"):
        lead += 1
    inserted = [block for step in steps[:lead] if step.kind == "insert" for block in step.new]
    if not inserted or lead == len(steps):
        return steps
    deletes = [step for step in steps[:lead] if step.kind == "delete"]
    first, rest = steps[lead], steps[lead + 1 :]
    assert first.old is not None
    if first.kind == "replace":
        return [
            *deletes,
            Step("anchor", first.old),
            Step("insert", new=inserted + first.new),
            Step("delete", first.old),
            *rest,
        ]
    now = first.new[0] if first.new else canonical_block(first.old)
    if first.kind == "descend":
        now = {
            **canonical_block({k: v for k, v in first.old.items() if k != "children"}),
            "children": _new_children(first),
        }
    if _recreatable(now):
        return [
            *deletes,
            Step("anchor", first.old),
            Step("insert", new=[*inserted, now]),
            Step("delete", first.old),
            *rest,
        ]
    writer.note("new content meant to go first went after the first block, which cannot be recreated")
    return [*deletes, first, Step("insert", new=inserted), *rest]


def _new_children(step: Step) -> list[Block]:
    out: list[Block] = []
    for child in step.children or []:
        if child.kind in ("insert", "update", "replace"):
            out += child.new
        elif child.kind in ("keep", "descend") and child.old is not None:
            block = canonical_block(child.old)
            if child.kind == "descend":
                block = {**head(block), "children": _new_children(child)}
            out.append(block)
    return out


def _recreatable(block: Block) -> bool:
    kind = block["type"]
    if kind not in CREATABLE or (kind in MEDIA_TYPES and block[kind].get("type") == "file"):
        return False
    if kind == "synced_block" and not is_synced_copy(block):
        return False  # its copies elsewhere follow this block's id
    return all(_recreatable(child) for child in block.get("children", []))


def _walk(steps: list[Step]) -> list[Step]:
    out: list[Step] = []
    for step in steps:
        out.append(step)
        out += _walk(step.children or [])
    return out


def _own_pages(block: dict[str, Any] | None) -> list[str]:
    if block is None:
        return []
    if block.get("type") in OWN_PAGES:
        return [str((block.get(str(block["type"])) or {}).get("title") or block.get("id"))]
    return [title for child in block.get("children", []) for title in _own_pages(child)]


async def _run(writer: Writer, parent_id: str, steps: list[Step]) -> None:
    anchor: str | None = None
    for step in steps:
        old_id = str(step.old.get("id")) if step.old is not None else None
        if step.kind in ("keep", "anchor"):
            anchor = old_id
        elif step.kind in ("update", "descend"):
            assert old_id is not None
            if step.kind == "update":
                await writer.update(old_id, head(step.new[0]))
            if step.children is not None:
                await _run(writer, old_id, step.children)
            anchor = old_id
        elif step.kind == "insert":
            made = await writer.append(parent_id, step.new, after=anchor)
            anchor = made[-1] if made else anchor
        elif step.kind == "delete":
            assert old_id is not None
            await writer.delete(old_id)
        elif step.kind == "replace":
            assert old_id is not None
            made = await writer.append(parent_id, step.new, after=old_id)
            await writer.delete(old_id)
            anchor = made[-1] if made else anchor
