"""Notion blocks <-> Markdown, both ways, losing nothing.

Ordinary Markdown carries what it can: headings, lists, to-dos, quotes, code fences, tables, links,
images, `**bold**`, `*italic*`, `~~strike~~`, `` `code` ``, `$math$`. A few HTML tags carry toggles
(`<details><summary>`), columns (`<columns><column>`), synced blocks (`<synced_block>`), underline
(`<u>`), colour (`<span color="red">`), empty paragraphs (`<empty-block/>`) and line breaks inside a
list item (`<br>`). Everything else is kept as JSON in an HTML comment:

- `text <!-- notion:{"color":"red"} -->` at the end of a block's first line: attributes of that block
  (with `"type"` when the block is not what its Markdown says, e.g. a callout written as a quote);
- a line that is only `<!-- notion:{"type":"breadcrumb","breadcrumb":{}} -->`: a whole block;
- `<!-- notion:{"type":"mention",...} -->@Alice<!-- /notion -->` inside text: a mention (the text
  between is what it shows; Notion computes it again on write).
"""

from .canonical import Block, RichText, canonical_block, canonical_blocks, canonical_rich_text, head, plain_text
from .inline_parse import parse_inline
from .inline_render import Unrepresentable, render_inline
from .parse import markdown_to_blocks
from .render import blocks_to_markdown, render_block, render_blocks, render_head

__all__ = [
    "Block",
    "RichText",
    "Unrepresentable",
    "blocks_to_markdown",
    "canonical_block",
    "canonical_blocks",
    "canonical_rich_text",
    "head",
    "markdown_to_blocks",
    "parse_inline",
    "plain_text",
    "render_block",
    "render_blocks",
    "render_head",
    "render_inline",
]
