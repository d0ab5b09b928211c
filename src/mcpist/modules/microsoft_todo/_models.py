"""Compact results built from Graph's To Do JSON: ids, titles, states, due days, reminder instants."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ._recurrence import Recurrence


class TaskList(BaseModel):
    id: str
    name: str
    default: bool = Field(False, description="the account's default list (Tasks)")
    kind: str | None = Field(None, description="Graph's wellknownListName: defaultList, flaggedEmails, none")
    is_owner: bool | None = None
    is_shared: bool | None = None


class TaskListPage(BaseModel):
    items: list[TaskList]
    next_cursor: str | None = None


class Deleted(BaseModel):
    id: str
    done: str


class Task(BaseModel):
    id: str
    list_id: str
    title: str
    status: str = Field(description="notStarted, inProgress, completed, waitingOnOthers, deferred")
    importance: str = "normal"
    due_date: str | None = Field(None, description="YYYY-MM-DD, the day as set")
    reminder: str | None = Field(None, description="an instant, with time_zone's offset")
    categories: list[str] = []
    recurrence: Recurrence | None = None
    completed_at: str | None = None
    created: str | None = None
    modified: str | None = None
    body_preview: str | None = Field(None, description="the start of the notes, as text")


class TaskPage(BaseModel):
    items: list[Task]
    next_cursor: str | None = None
    time_zone: str = Field(description="the zone reminders are given in")
    notes: list[str] = []


class ChecklistItem(BaseModel):
    id: str
    title: str
    checked: bool = False
    checked_at: str | None = None


class LinkedResource(BaseModel):
    id: str
    title: str | None = None
    url: str | None = None
    application: str | None = None
    external_id: str | None = None


class TaskResult(Task):
    time_zone: str
    notes: list[str] = Field([], description="things worth knowing, e.g. how a time was read")
    done: str | None = None


class TaskDetail(TaskResult):
    body: str = Field("", description="the notes as text, from body_offset")
    body_chars: int = 0
    body_next_offset: int | None = Field(None, description="more notes follow: call again with this body_offset")
    checklist: list[ChecklistItem] = []
    linked_resources: list[LinkedResource] = []


class ChecklistResult(BaseModel):
    task_id: str
    done: list[str] = Field(description="each edit made, in order")
    items: list[ChecklistItem] = Field(description="the checklist after the edits")


class LinkedResult(BaseModel):
    task_id: str
    done: list[str]
    items: list[LinkedResource]


class SearchHit(Task):
    list_name: str | None = None
    matched: list[str] = Field(description="where the words were found: title, body, categories")


class SearchResult(BaseModel):
    items: list[SearchHit]
    scanned: int = Field(description="tasks read in this call")
    next_cursor: str | None = Field(None, description="more tasks remain to scan: pass it back as cursor")
    time_zone: str
    notes: list[str] = []


class TaskChanges(BaseModel):
    changed: list[Task] = Field(description="tasks created or changed (all of them on a first call)")
    removed: list[str] = Field(description="ids of tasks deleted since the token")
    sync_token: str = Field(description="pass it back next time; keep it until the next call succeeds")
    has_more: bool = Field(description="true: more changes wait now; call again at once with sync_token")
    time_zone: str
    notes: list[str] = []
