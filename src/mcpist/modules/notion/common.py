"""Helpers the tools share: checking Notion's answers, pages as `PageInfo`, parents of new pages."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from mcpist.modules import InvalidArgument, MCPistError

from ._module import Ctx, notion_id
from .models import PageInfo
from .properties import flatten, icon_of, parent_of, title_of


class _Object(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str


class _List(BaseModel):
    model_config = ConfigDict(extra="allow")
    results: list[dict[str, Any]]


def an_object(ctx: Ctx, body: Any) -> dict[str, Any]:
    """Notion's answer, checked to be an object with an id.

    Raises:
        Unavailable: it is not.
    """
    ctx.http.parse(_Object, body)
    result: dict[str, Any] = body
    return result


def results(ctx: Ctx, body: Any) -> list[dict[str, Any]]:
    """The `results` of a list answer.

    Raises:
        Unavailable: the answer has none.
    """
    return ctx.http.parse(_List, body).results


def page_info(page: dict[str, Any]) -> PageInfo:
    properties = flatten(page.get("properties"))
    return PageInfo(
        id=str(page["id"]),
        title=title_of(page),
        url=page.get("url"),
        parent=parent_of(page.get("parent")),
        created=page.get("created_time"),
        last_edited=page.get("last_edited_time"),
        in_trash=bool(page.get("in_trash") or page.get("archived")) or None,
        icon=icon_of(page.get("icon")),
        properties=properties or None,
    )


def truncated_properties(page: dict[str, Any]) -> list[str]:
    """Notes for properties a page object shows only in part (over 25 people, relations, text runs)."""
    return [
        f"property {name!r} has more values than shown: read them with get_page_property"
        for name, prop in (page.get("properties") or {}).items()
        if isinstance(prop, dict) and prop.get("has_more") is True
    ]


def one_parent(parent_page_id: str | None, data_source_id: str | None) -> tuple[str, str]:
    """("page" | "data_source", id) from the two optional parent parameters.

    Raises:
        InvalidArgument: neither or both are given.
    """
    if (parent_page_id is None) == (data_source_id is None):
        raise InvalidArgument("notion: give one of parent_page_id and data_source_id", {"field": "parent_page_id"})
    if parent_page_id is not None:
        return "page", notion_id(parent_page_id, "parent_page_id")
    assert data_source_id is not None
    return "data_source", notion_id(data_source_id, "data_source_id")


async def data_source(ctx: Ctx, data_source_id: str) -> dict[str, Any]:
    return an_object(ctx, await ctx.http.get_json(f"/v1/data_sources/{data_source_id}"))


def database_parent(source: dict[str, Any]) -> dict[str, Any]:
    """The parent a new page in this data source takes.

    The description this module is checked against documents only `database_id` parents, which Notion still
    takes for a database with one data source; a second data source needs a `data_source_id` parent.
    """
    parent = source.get("parent") or {}
    database_id = parent.get("database_id") if isinstance(parent, dict) else None
    if not isinstance(database_id, str):
        raise InvalidArgument("notion: this data source has no database parent to create pages in")
    return {"type": "database_id", "database_id": database_id}


def partly_done(exc: MCPistError, done: str) -> MCPistError:
    """`exc`, saying what had already been written when it happened."""
    exc.message = f"{exc.message} ({done})"
    exc.args = (exc.message,)
    exc.data = {**exc.data, "partial": True}
    return exc
