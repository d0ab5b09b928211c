"""Compact results built from Jira's JSON: keys, summaries, statuses, people, dates, URLs and Markdown text.

Tools build these from Jira's bulky objects (`fields.status.name`, `assignee.displayName`) with the readers
below, so the published output schema shows only the short names.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from mcpist.modules import Unavailable
from mcpist.upstream import Page

COMMENT_CHARS = 4000  # each comment of a page


def name_of(value: Any) -> str | None:
    """A status, priority, user or type object as its display name."""
    if isinstance(value, dict):
        found = value.get("displayName") or value.get("name") or value.get("value") or value.get("key")
        return str(found) if found is not None else None
    return None if value is None else str(value)


def cut(text: str, limit: int = COMMENT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n…[cut: {limit} of {len(text)} characters shown]"


class User(BaseModel):
    account_id: str | None = None
    name: str | None = None
    email: str | None = None
    active: bool | None = None
    time_zone: str | None = None


class IssueSummary(BaseModel):
    key: str
    summary: str | None = None
    status: str | None = None
    type: str | None = None
    priority: str | None = None
    assignee: str | None = None
    updated: str | None = None
    url: str
    fields: dict[str, Any] | None = Field(None, description="other fields asked for, as Jira gives them")


class IssuePage(Page[IssueSummary]):
    pass


class Comment(BaseModel):
    id: str
    author: str | None = None
    created: str | None = None
    updated: str | None = None
    body: str = Field("", description="Markdown, or ADF JSON with raw")


class Change(BaseModel):
    at: str | None = None
    author: str | None = None
    field: str
    old: str | None = Field(None, description="from")
    new: str | None = Field(None, description="to")


class IssueDetail(IssueSummary):
    id: str
    project: str | None = None
    reporter: str | None = None
    created: str | None = None
    due: str | None = None
    labels: list[str] = []
    components: list[str] = []
    parent: str | None = None
    description: str = Field("", description="Markdown (ADF JSON with raw), from `offset`")
    description_chars: int = 0
    description_next_offset: int | None = Field(None, description="pass as `offset` to read on")
    comments: list[Comment] = []
    comments_total: int | None = None
    next_cursor: str | None = Field(None, description="more comments: pass as `cursor`")
    history: list[Change] | None = None
    history_next_cursor: str | None = None


class Written(BaseModel):
    key: str
    url: str
    done: str = Field(description="what changed")


class Transition(BaseModel):
    id: str
    name: str
    to: str | None = Field(None, description="status after it")
    category: str | None = None
    fields_required: list[str] = []


class Transitions(BaseModel):
    key: str
    transitions: list[Transition]


class Project(BaseModel):
    key: str
    id: str
    name: str
    type: str | None = None
    lead: str | None = None
    url: str


class FieldMeta(BaseModel):
    id: str
    name: str
    required: bool = False
    type: str | None = None
    allowed: list[str] | None = Field(None, description="first allowed values")


class IssueTypeMeta(BaseModel):
    id: str
    name: str
    subtask: bool = False
    fields: list[FieldMeta] | None = None


class CreateMetadata(BaseModel):
    project: str
    issue_types: list[IssueTypeMeta]


class JiraField(BaseModel):
    id: str
    name: str
    custom: bool = False
    type: str | None = None
    clause_names: list[str] = []


class Worklog(BaseModel):
    id: str
    author: str | None = None
    started: str | None = None
    time_spent: str | None = None
    seconds: int | None = None
    comment: str | None = None


class Board(BaseModel):
    id: int
    name: str
    type: str | None = None
    project: str | None = None


class Sprint(BaseModel):
    id: int
    name: str
    state: str | None = None
    board_id: int | None = None
    start: str | None = None
    end: str | None = None
    goal: str | None = None


class BoardsAndSprints(BaseModel):
    boards: list[Board]
    sprints: list[Sprint] = Field([], description="of `board_id`, when given")
    next_cursor: str | None = None


class Attachment(BaseModel):
    id: str
    filename: str
    size: int | None = None
    mime_type: str | None = None
    created: str | None = None
    author: str | None = None
    url: str | None = Field(None, description="content URL (needs the account's credentials)")


class Attachments(BaseModel):
    key: str
    attachments: list[Attachment]


def key_of(raw: dict[str, Any], what: str) -> str:
    """The `key` every Jira issue and project carries.

    Raises:
        Unavailable: the answer has none (a shape no tool can use).
    """
    key = raw.get("key")
    if not isinstance(key, str) or not key:
        raise Unavailable(f"jira answered {what} without its key", {"service": "jira"})
    return key


def issue_summary(raw: Any, web: str, extra: list[str] | None = None) -> IssueSummary:
    key = key_of(raw, "an issue")
    fields = raw.get("fields") or {}
    known = {"summary", "status", "issuetype", "priority", "assignee", "updated"}
    others = {k: v for k, v in fields.items() if k not in known and (extra is None or k in extra)}
    return IssueSummary(
        key=key,
        summary=fields.get("summary"),
        status=name_of(fields.get("status")),
        type=name_of(fields.get("issuetype")),
        priority=name_of(fields.get("priority")),
        assignee=name_of(fields.get("assignee")),
        updated=fields.get("updated"),
        url=f"{web}/browse/{key}",
        fields=others or None,
    )


def user(raw: Any) -> User:
    return User(
        account_id=raw.get("accountId") or raw.get("key"),
        name=raw.get("displayName") or raw.get("name"),
        email=raw.get("emailAddress"),
        active=raw.get("active"),
        time_zone=raw.get("timeZone"),
    )
