"""What the tools return: compact, typed, with links people can open (never Confluence's raw JSON)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Space(BaseModel):
    id: str
    key: str | None = None
    name: str | None = None
    type: str | None = None
    status: str | None = None
    homepage_id: str | None = None
    url: str | None = None


class PageSummary(BaseModel):
    id: str
    title: str | None = None
    space_id: str | None = None
    parent_id: str | None = None
    status: str | None = None
    version: int | None = None
    updated: str | None = Field(None, description="when the current version was made")
    url: str | None = None


class PageDoc(PageSummary):
    format: Literal["markdown", "storage"]
    body: str = Field(description="this window of the body")
    offset: int
    total_chars: int
    truncated: bool
    next_offset: int | None = Field(None, description="pass as `offset` to read on")


class TreeNode(BaseModel):
    id: str
    title: str | None = None
    type: str | None = None


class PageTree(BaseModel):
    page_id: str
    ancestors: list[TreeNode] = Field(description="from the space's root down to the parent")
    children: list[TreeNode]
    next_cursor: str | None = Field(None, description="more children: pass back as `cursor`")


class PageWritten(BaseModel):
    id: str
    title: str | None = None
    space_id: str | None = None
    parent_id: str | None = None
    version: int | None = None
    url: str | None = None


class Deleted(BaseModel):
    id: str
    status: Literal["trashed", "purged"]


class SearchHit(BaseModel):
    id: str | None = None
    type: str | None = None
    title: str
    space_key: str | None = None
    space: str | None = Field(None, description="the space's name")
    excerpt: str | None = None
    updated: str | None = None
    url: str | None = None


class SearchPage(BaseModel):
    items: list[SearchHit]
    next_cursor: str | None = None
    total: int | None = None
    cql: str = Field(description="the query run")


class Comment(BaseModel):
    id: str
    kind: Literal["footer", "inline"]
    author_id: str | None = None
    created: str | None = None
    version: int | None = None
    body: str
    truncated: bool = False
    resolution: str | None = Field(None, description="inline comments: open, resolved, ...")
    selection: str | None = Field(None, description="inline comments: the highlighted text")
    url: str | None = None


class Labels(BaseModel):
    page_id: str
    labels: list[str]


class Attachment(BaseModel):
    id: str
    title: str | None = None
    media_type: str | None = None
    size: int | None = None
    version: int | None = None
    created: str | None = None
    comment: str | None = None
    download_url: str | None = None
    url: str | None = None


class Version(BaseModel):
    number: int
    created: str | None = None
    author_id: str | None = None
    message: str | None = None
    minor_edit: bool | None = None
