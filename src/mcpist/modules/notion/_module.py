"""The `notion` module's declaration, settings and the parameter types its tools share."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field

from mcpist.modules import InvalidArgument, Module, OAuth2Auth, ServiceSettings, ToolContext
from mcpist.upstream import Limit

__all__ = ["DOCS", "NOTION_VERSION", "Ctx", "Id", "Limit", "NotionSettings", "module", "notion_id"]

NOTION_VERSION = "2025-09-03"


class NotionSettings(ServiceSettings):
    """`[modules.settings.notion]` in mcpist.toml."""

    base_url: str = Field(default="https://api.notion.com", description="the Notion API's root URL")
    max_blocks: int = Field(
        default=2000, ge=100, le=20_000, description="blocks read from one page at most (page content, copies, edits)"
    )


DOCS = """\
Ids: every `*_id` takes a Notion id (with or without dashes) or a Notion URL.
Find things with `search` (pages and data sources; a data source's `parent` names its database). A database \
holds data sources (tables): `get_database` gives their ids and property schemas, `query_data_source` its rows \
(`filter` and `sorts` in Notion's JSON, e.g. {"property":"Status","status":{"equals":"Done"}}).
Pages: `get_page` returns properties as plain values and the content as Markdown (`offset` reads on when \
`truncated`). Write content as Markdown with `create_page`, `append_blocks` or `update_page_content` \
(`replace`, `find_replace` with old/new strings taken from get_page's Markdown, or `append`); blocks that did \
not change keep their ids and comments. Child pages and databases are never deleted unless \
`allow_deleting_content`. Block-level edits: `get_block_children` gives block ids.
Property values: text as a string, number, checkbox true/false, select/status by option name, multi_select, \
people (user ids; "Name <id>" works) and relation (page ids) as lists, date "2025-01-31" or \
"2025-01-31T09:00+09:00/2025-02-01" (start/end); null clears.
Markdown: standard Markdown plus `<details><summary>` toggles, `<columns><column>`, `<synced_block>`, `<u>`, \
`<span color="red">`, `<empty-block/>`, `<br>` in list items, `$math$`/`$$` equations. What Markdown cannot say \
is kept as JSON in comments, to be left as it is: `<!-- notion:{"color":"red"} -->` at the end of a block's first \
line (attributes; "type" when the block is e.g. a callout shown as a quote), a line that is only \
`<!-- notion:{"type":...} -->` (a whole block), and `<!-- notion:{"type":"mention",...} -->@Name<!-- /notion -->` \
(a mention; write one the same way with a user/page id). Child pages appear as \
`[Title](https://www.notion.so/<id>) <!-- notion:{"type":"child_page"} -->`."""

module = Module(
    "notion",
    summary="Notion pages, databases, blocks, comments as Markdown",
    description="Search a Notion workspace; read and write pages as Markdown, query databases as flat rows, "
    "edit properties, blocks and comments, with any of your connected Notion workspaces.",
    settings=NotionSettings,
    # an internal integration secret (`mcpist account add notion --token-stdin`) goes out as Bearer too
    auth=OAuth2Auth(
        authorize_url="https://api.notion.com/v1/oauth/authorize",
        token_url="https://api.notion.com/v1/oauth/token",  # noqa: S106 - a URL, not a password
        authorize_params={"owner": "user"},
        exchange_format="json",  # Notion's token endpoint takes a JSON body
    ),
    headers={"Notion-Version": NOTION_VERSION},
    api_version=NOTION_VERSION,
    docs=DOCS,
)

Ctx = ToolContext[NotionSettings]

Id = Annotated[str, Field(min_length=32, max_length=600, pattern=r"^\S+$", description="Notion id or URL")]

_UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")


def notion_id(value: str, field: str) -> str:
    """The dashed UUID in an id or a Notion URL: a peeked page's `?p=`, else the path's last id.

    `?v=` names a view and `#` a block, neither of which is the page the URL is about.

    Raises:
        InvalidArgument: no id in it.
    """
    text = value.strip().lower()
    path, _, query = text.split("#")[0].partition("?")
    peeked = [_UUID.findall(part[2:]) for part in query.split("&") if part.startswith("p=")]
    found = peeked[0] if peeked and peeked[0] else _UUID.findall(path)
    if not found:
        raise InvalidArgument(f"notion: {field} is not a Notion id or URL (expected 32 hex digits)", {"field": field})
    raw = found[-1].replace("-", "")
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
