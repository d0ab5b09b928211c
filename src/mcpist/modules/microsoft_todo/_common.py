"""What the tools share: id types, Graph paths, paging over @odata.nextLink, and reading a task."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Annotated, Any, TypeVar
from urllib.parse import quote, unquote, urlsplit

from pydantic import Field

from mcpist.modules import InvalidArgument, NotFound
from mcpist.upstream import Page, collect, odata_next

from ._models import Task
from ._module import Ctx
from ._recurrence import recurrence_from_graph
from ._time import SERVICE, Zone, due_from_graph, instant_from_graph

T = TypeVar("T")
LISTS = "/me/todo/lists"
PREVIEW_CHARS = 200

_ID = r"^[A-Za-z0-9=_+\-]{1,512}$"
ListId = Annotated[str, Field(pattern=_ID, description="from list_task_lists")]
TaskId = Annotated[str, Field(pattern=_ID, description="from list_tasks")]
ItemId = Annotated[str, Field(pattern=_ID)]
Title = Annotated[str, Field(min_length=1, max_length=255)]
TASK_FIELDS = [
    "id",
    "title",
    "status",
    "importance",
    "dueDateTime",
    "reminderDateTime",
    "isReminderOn",
    "categories",
    "recurrence",
    "completedDateTime",
    "createdDateTime",
    "lastModifiedDateTime",
    "body",
]


def invalid(message: str, **data: Any) -> InvalidArgument:
    return InvalidArgument(f"{SERVICE}: {message}", {"service": SERVICE, **data})


def seg(value: str) -> str:
    return quote(value, safe="")


def list_path(list_id: str) -> str:
    return f"{LISTS}/{seg(list_id)}"


def tasks_path(list_id: str) -> str:
    return f"{LISTS}/{seg(list_id)}/tasks"


def task_path(list_id: str, task_id: str) -> str:
    return f"{LISTS}/{seg(list_id)}/tasks/{seg(task_id)}"


@contextmanager
def not_found(what: str) -> Iterator[None]:
    """Graph answers 404 for what does not exist and for what the account cannot see: say both, and what."""
    try:
        yield
    except NotFound as exc:
        if exc.data.get("status") != 404:
            raise
        raise NotFound(f"{SERVICE}: {what} not found, or the account cannot see it", exc.data) from None


def check_next_link(ctx: Ctx, url: str, what: str = "cursor", list_id: str | None = None) -> None:
    """A next or delta link a cursor brings back must be a Graph To Do URL (of `list_id`'s tasks, when given),
    not any URL on Graph's origin. Graph may spell the list id or the path differently from our request.

    Raises:
        InvalidArgument: it is not.
    """
    parts, base = urlsplit(url), urlsplit(ctx.http.base_url)
    path = unquote(parts.path)
    ours = (parts.scheme, parts.netloc) == (base.scheme, base.netloc) and path.startswith(
        unquote(base.path).rstrip("/") + "/"
    )
    if not ours or "/todo/lists" not in path:
        raise invalid(
            f"`{what}` is not one this tool returned; pass it unchanged, or omit it to start over", field=what
        )
    if list_id is not None and f"/todo/lists/{list_id}/tasks/" not in path:
        raise invalid(f"`{what}` belongs to another list; omit it to start over", field=what)


async def odata_paged(
    ctx: Ctx,
    path: str,
    convert: Callable[[dict[str, Any]], T | None],
    *,
    limit: int,
    cursor: str | None,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    page_size: int = 50,
) -> Page[T]:
    """Up to `limit` converted items of a Graph collection, following `@odata.nextLink` (which keeps the query);
    `convert` returning None drops an item (a filter Graph cannot apply)."""

    async def fetch(url: str | None) -> tuple[list[T], str | None]:
        if url is None:
            body = await ctx.http.get_json(path, params={**(params or {}), "$top": page_size}, headers=headers)
        else:
            check_next_link(ctx, url)
            body = await ctx.http.get_json(url, headers=headers)
        items = [convert(raw) for raw in values(ctx, body)]
        return [item for item in items if item is not None], odata_next(body)

    return await collect(fetch, limit, cursor=cursor, service=SERVICE, state_type=str)


def values(ctx: Ctx, body: Any) -> list[dict[str, Any]]:
    """The `value` array of a Graph collection."""
    found = ctx.http.parse(dict[str, Any], body)
    return ctx.http.parse(list[dict[str, Any]], found.get("value") or [])


_BLOCK_END = re.compile(r"<\s*(br|/p|/div|/li|/h[1-6]|/tr)\b[^>]*>", re.IGNORECASE)
_DROPPED = re.compile(r"<(script|style|head)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_BLANKS = re.compile(r"\n\s*\n\s*\n+")


def body_text(raw: Any) -> str:
    """A task's notes as plain text (Outlook's flagged e-mails bring HTML bodies)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("content"), str):
        return ""
    text: str = raw["content"]
    if str(raw.get("contentType", "")).lower() == "html":
        text = _DROPPED.sub("", text)
        text = _BLOCK_END.sub("\n", text)
        text = html.unescape(_TAG.sub("", text))
        text = _BLANKS.sub("\n\n", "\n".join(line.rstrip() for line in text.splitlines()))
    return text.strip()


def read_task(raw: Mapping[str, Any], list_id: str, zone: Zone, notes: list[str] | None = None) -> Task:
    """One todoTask as a `Task`: the due day as set, the reminder (when on) in `zone`; notes go to `notes`."""
    reminder: str | None = None
    if raw.get("isReminderOn"):
        reminder, said = instant_from_graph(raw.get("reminderDateTime"), zone)
        if notes is not None:
            notes.extend(said)
    completed, _ = instant_from_graph(raw.get("completedDateTime"), zone, "completion time")
    text = body_text(raw.get("body"))
    preview = " ".join(text.split())
    return Task(
        id=str(raw.get("id", "")),
        list_id=list_id,
        title=str(raw.get("title") or ""),
        status=str(raw.get("status") or "notStarted"),
        importance=str(raw.get("importance") or "normal"),
        due_date=due_from_graph(raw.get("dueDateTime"), zone),
        reminder=reminder,
        categories=[c for c in raw.get("categories") or [] if isinstance(c, str)],
        recurrence=recurrence_from_graph(raw.get("recurrence")),
        completed_at=completed,
        created=_text(raw.get("createdDateTime")),
        modified=_text(raw.get("lastModifiedDateTime")),
        body_preview=(preview[:PREVIEW_CHARS] + ("…" if len(preview) > PREVIEW_CHARS else "")) or None,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


async def fetch_all_lists(ctx: Ctx, max_pages: int = 10) -> list[dict[str, Any]]:
    """Every task list of the account (at most `max_pages` pages of 100)."""
    found: list[dict[str, Any]] = []
    url: str | None = None
    for _ in range(max_pages):
        if url is None:
            body = await ctx.http.get_json(LISTS, params={"$top": 100})
        else:
            check_next_link(ctx, url)
            body = await ctx.http.get_json(url)
        found.extend(values(ctx, body))
        url = odata_next(body)
        if url is None:
            break
    return found
