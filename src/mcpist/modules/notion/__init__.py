"""MCPist module `notion`: a Notion workspace's pages, databases, blocks and comments.

Results are compact for an LLM: property values flattened to plain values, page content as Markdown (see
`markdown/` for the conventions that keep what Markdown cannot say), long text clipped with an offset to
read on. Each connected account is one workspace (an OAuth connection, or an internal integration secret
stored with `mcpist account add notion --token-stdin`); `call`'s `account` picks one.

The tools follow Notion-Version 2025-09-03 (databases hold data sources) as described in
tests/vendor_specs/notion.json.
"""

from . import blocks, databases, page_writes, pages, workspace
from ._module import NOTION_VERSION, NotionSettings, module
from .prompts import NotionPrompts

module.prompts = NotionPrompts()

__all__ = ["NOTION_VERSION", "NotionSettings", "blocks", "databases", "module", "page_writes", "pages", "workspace"]
