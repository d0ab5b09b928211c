"""What the tools return: the few fields an LLM needs, property values flattened to plain values."""

from __future__ import annotations

from pydantic import BaseModel, Field

from mcpist.upstream import Clipped

PropertyValue = str | bool | int | float | list[str] | None


class PageRef(BaseModel):
    id: str
    title: str
    url: str | None = None


class SearchHit(BaseModel):
    id: str
    type: str = Field(description="page or data_source")
    title: str
    url: str | None = None
    parent: str | None = Field(default=None, description="page:ID, database:ID, data_source:ID, block:ID, workspace")
    last_edited: str | None = None


class PageInfo(BaseModel):
    id: str
    title: str
    url: str | None = None
    parent: str | None = Field(default=None, description="page:ID, database:ID, data_source:ID, block:ID, workspace")
    created: str | None = None
    last_edited: str | None = None
    in_trash: bool | None = None
    icon: str | None = None
    properties: dict[str, PropertyValue] | None = Field(default=None, description="all but the title, as values")


class PageContent(PageInfo):
    content: Clipped | None = Field(default=None, description="the page's blocks as Markdown")
    notes: list[str] | None = None


class BlockInfo(BaseModel):
    id: str
    type: str
    markdown: str = Field(description="the block itself, without its children")
    has_children: bool = False


class ContentWrite(BaseModel):
    id: str = Field(description="the page or block written to")
    url: str | None = None
    added: int = Field(default=0, description="blocks created")
    updated: int | None = Field(default=None, description="blocks changed in place")
    deleted: int | None = Field(default=None, description="blocks deleted")
    notes: list[str] | None = None


class PropertyItems(BaseModel):
    name: str
    type: str
    value: PropertyValue = None
    next_cursor: str | None = None


class PropertySchema(BaseModel):
    type: str
    options: list[str] | None = Field(default=None, description="select, multi_select and status options")
    data_source_id: str | None = Field(default=None, description="a relation's target")
    expression: str | None = Field(default=None, description="a formula's expression")


class DataSourceInfo(BaseModel):
    id: str
    name: str
    database_id: str | None = None
    properties: dict[str, PropertySchema] = Field(default_factory=dict)


class DatabaseInfo(BaseModel):
    id: str
    title: str
    url: str | None = None
    data_sources: list[DataSourceInfo]


class Row(BaseModel):
    id: str
    title: str
    url: str | None = None
    properties: dict[str, PropertyValue] = Field(default_factory=dict)


class Comment(BaseModel):
    id: str
    discussion_id: str | None = None
    author: str | None = None
    created: str | None = None
    text: str


class User(BaseModel):
    id: str
    name: str | None = None
    type: str | None = Field(default=None, description="person or bot")
    email: str | None = None


class Trashed(BaseModel):
    id: str
    in_trash: bool
