"""Jira's rich text (Atlassian Document Format) <-> Markdown, keeping what Markdown cannot say.

`adf_to_markdown(doc)` shows a document as Markdown; `markdown_to_adf(text)` builds the document Jira takes.
What Markdown has no syntax for (mentions, emoji, status lozenges, panels, smart links, media, expands, dates,
nodes this code does not know) travels as compact JSON in an HTML comment and comes back as the same node, so
reading a description and writing it back loses nothing. `canonical(doc)` is the form a round trip returns.
"""

from __future__ import annotations

from typing import Any

from ._common import Node, canonical
from .blocks import parse_blocks, render_blocks
from .inline import parse_inline, render_inline


def adf_to_markdown(doc: Any) -> str:
    """A document (or a bare list of blocks) as Markdown; None and empty documents are ''."""
    if isinstance(doc, dict):
        blocks = doc.get("content", [])
    elif isinstance(doc, list):
        blocks = doc
    elif isinstance(doc, str):
        return doc  # Data Center's API v2 and some fields answer plain text
    else:
        return ""
    return render_blocks(blocks if isinstance(blocks, list) else [])


def markdown_to_adf(text: str) -> Node:
    """Markdown as an ADF document (version 1)."""
    return {"type": "doc", "version": 1, "content": parse_blocks(text)}


__all__ = ["Node", "adf_to_markdown", "canonical", "markdown_to_adf", "parse_inline", "render_inline"]
