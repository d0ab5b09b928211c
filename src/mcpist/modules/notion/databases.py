"""Databases and their data sources: schemas in short form, rows as flat values, creating and changing schemas."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpist.modules import InvalidArgument
from mcpist.upstream import Cursor, Page, body_cursor, collect

from ._module import Ctx, Id, Limit, module, notion_id
from .common import an_object, data_source, results
from .markdown.wire import text_items
from .models import DatabaseInfo, DataSourceInfo, Row
from .properties import definitions, flatten, schema_of, title_of

_MAX_SOURCES = 10
Title = Annotated[str, Field(min_length=1, max_length=2000)]
Definitions = Annotated[
    dict[str, str | dict[str, Any] | None],
    Field(
        description='name -> type: "title", "rich_text", "number", "select: A, B", "multi_select: A, B", "status", '
        '"date", "people", "files", "checkbox", "url", "email", "phone_number", "relation: <data source id>", '
        '"formula: <expression>", or Notion\'s own JSON; in updates {"name": "New"} renames and null removes'
    ),
]


class Sort(BaseModel):
    property: str = Field(min_length=1)
    direction: Literal["ascending", "descending"] = "ascending"


def source_info(source: dict[str, Any]) -> DataSourceInfo:
    parent = source.get("parent") or {}
    return DataSourceInfo(
        id=str(source["id"]),
        name=title_of(source),
        database_id=parent.get("database_id") if isinstance(parent, dict) else None,
        properties=schema_of(source.get("properties")),
    )


@module.tool(read_only=True)
async def get_database(ctx: Ctx, database_id: Id | None = None, data_source_id: Id | None = None) -> DatabaseInfo:
    """A database (by its id or one of its data sources'): its data sources with their property schemas."""
    if (database_id is None) == (data_source_id is None):
        raise InvalidArgument("notion: give one of database_id and data_source_id", {"field": "database_id"})
    known: dict[str, dict[str, Any]] = {}
    if data_source_id is not None:
        source = await data_source(ctx, notion_id(data_source_id, "data_source_id"))
        known[str(source["id"])] = source
        parent = source.get("parent") or {}
        if not isinstance(parent.get("database_id"), str):
            return DatabaseInfo(id=str(source["id"]), title=title_of(source), data_sources=[source_info(source)])
        dbid = str(parent["database_id"])
    else:
        dbid = notion_id(str(database_id), "database_id")
    database = an_object(ctx, await ctx.http.get_json(f"/v1/databases/{dbid}"))
    listed = [s for s in database.get("data_sources") or [] if isinstance(s, dict) and isinstance(s.get("id"), str)]
    sources = []
    for entry in listed[:_MAX_SOURCES]:
        source = known.get(entry["id"]) or await data_source(ctx, entry["id"])
        sources.append(source_info(source))
    return DatabaseInfo(id=str(database["id"]), title=title_of(database), url=database.get("url"), data_sources=sources)


@module.tool(read_only=True)
async def query_data_source(
    ctx: Ctx,
    data_source_id: Id,
    filter: Annotated[
        dict[str, Any] | None,
        Field(description='Notion filter JSON, e.g. {"property":"Status","status":{"equals":"Done"}} or {"and":[...]}'),
    ] = None,
    sorts: Annotated[list[Sort] | None, Field(max_length=10)] = None,
    columns: Annotated[list[str] | None, Field(description="only these properties in each row")] = None,
    limit: Limit = 25,
    cursor: Cursor = None,
) -> Page[Row]:
    """Rows of a data source (a database's table) as flat property values, filtered and sorted."""
    dsid = notion_id(data_source_id, "data_source_id")
    body: dict[str, Any] = {"page_size": min(limit, 100)}
    if filter:
        body["filter"] = filter
    if sorts:
        body["sorts"] = [sort.model_dump() for sort in sorts]
    wanted = set(columns) if columns else None

    async def fetch(token: str | None) -> tuple[list[Row], str | None]:
        page = {**body, "start_cursor": token} if token else body
        answer = await ctx.http.post_json(f"/v1/data_sources/{dsid}/query", page, retry=True)  # a read
        rows = [_row(page, wanted) for page in results(ctx, answer) if isinstance(page.get("id"), str)]
        return rows, body_cursor(answer)

    return await collect(fetch, limit, cursor=cursor, service="notion")


def _row(page: dict[str, Any], wanted: set[str] | None) -> Row:
    values = flatten(page.get("properties"))
    if wanted is not None:
        values = {name: value for name, value in values.items() if name in wanted}
    return Row(id=str(page["id"]), title=title_of(page), url=page.get("url"), properties=values)


@module.tool()
async def create_database(ctx: Ctx, parent_page_id: Id, title: Title, properties: Definitions) -> DataSourceInfo:
    """Create a database (a data source) in a page with the given properties; a "Name" title is added if none."""
    pid = notion_id(parent_page_id, "parent_page_id")
    schema = definitions(properties, allow_removal=False)
    if not any(isinstance(value, dict) and "title" in value for value in schema.values()):
        schema = {"Name": {"title": {}}, **schema}
    body = {"parent": {"type": "page_id", "page_id": pid}, "title": text_items(title), "properties": schema}
    return source_info(an_object(ctx, await ctx.http.post_json("/v1/data_sources", body)))


@module.tool(idempotent=True)
async def update_data_source_schema(
    ctx: Ctx, data_source_id: Id, properties: Definitions | None = None, title: Title | None = None
) -> DataSourceInfo:
    """Add, change, rename or remove a data source's properties, or rename it."""
    dsid = notion_id(data_source_id, "data_source_id")
    body: dict[str, Any] = {}
    if properties:
        body["properties"] = definitions(properties, allow_removal=True)
    if title is not None:
        body["title"] = text_items(title)
    if not body:
        raise InvalidArgument("notion: give properties or title to change", {"field": "properties"})
    return source_info(an_object(ctx, await ctx.http.patch_json(f"/v1/data_sources/{dsid}", body, retry=True)))
