"""search_tasks: words in titles, notes and categories, across lists, by a bounded scan.

Graph's To Do API has no full-text search ($search is refused on tasks, and $filter cannot reach the notes), so the
tool reads tasks page by page and matches text itself. `max_scanned` bounds one call; the cursor continues the scan
where it stopped: the list's index, the page's URL and the position in that page.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from pydantic import Field

from mcpist.upstream import Cursor, Limit, decode_cursor, encode_cursor, odata_next

from ._common import (
    TASK_FIELDS,
    ListId,
    body_text,
    check_next_link,
    fetch_all_lists,
    invalid,
    not_found,
    read_task,
    tasks_path,
    values,
)
from ._models import SearchHit, SearchResult
from ._module import Ctx, module
from ._time import PREFER_UTC, SERVICE, TimeZoneName, caller_zone

PAGE = 100


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _where(raw: dict[str, Any], words: list[str]) -> list[str] | None:
    """Where every word occurs (title, body, categories), or None when one does not occur anywhere."""
    fields = {
        "title": _fold(str(raw.get("title") or "")),
        "body": _fold(body_text(raw.get("body"))),
        "categories": _fold(" ".join(c for c in raw.get("categories") or [] if isinstance(c, str))),
    }
    if not all(any(word in text for text in fields.values()) for word in words):
        return None
    return [name for name, text in fields.items() if any(word in text for word in words)]


def _resume(cursor: str | None) -> tuple[int, str | None, int]:
    if not cursor:
        return 0, None, 0
    state = decode_cursor(cursor, service=SERVICE)
    index, url, skip = state.get("i"), state.get("u"), state.get("k")
    if not (isinstance(index, int) and index >= 0 and isinstance(skip, int) and skip >= 0):
        raise invalid("`cursor` is not one this tool returned; omit it to start over", field="cursor")
    if url is not None and not isinstance(url, str):
        raise invalid("`cursor` is not one this tool returned; omit it to start over", field="cursor")
    return index, url, skip


def _after(
    index: int, url: str | None, position: int, page: list[Any], following: str | None, lists: int
) -> dict[str, Any] | None:
    """Where the next call scans from: later in this page, the next page, the next list, or nowhere (None)."""
    if position < len(page):
        return {"i": index, "u": url, "k": position}
    if following is not None:
        return {"i": index, "u": following, "k": 0}
    if index + 1 < lists:
        return {"i": index + 1, "u": None, "k": 0}
    return None


@module.tool(read_only=True)
async def search_tasks(
    ctx: Ctx,
    query: Annotated[str, Field(min_length=1, max_length=200, description="words that must all occur")],
    list_id: Annotated[ListId | None, Field(description="search this list only; default all lists")] = None,
    include_completed: bool = False,
    limit: Limit = 20,
    max_scanned: Annotated[int, Field(ge=50, le=2000, description="tasks read at most in this call")] = 500,
    cursor: Cursor = None,
    time_zone: TimeZoneName = None,
) -> SearchResult:
    """Find tasks whose title, notes or categories hold all the words (case-insensitive), across lists."""
    zone = caller_zone(time_zone, ctx.settings.time_zone)
    words = [_fold(word) for word in query.split()]
    if not words:
        raise invalid("`query` holds no words", field="query")
    index, url, skip = _resume(cursor)
    if list_id is None:
        lists = [(str(raw.get("id", "")), str(raw.get("displayName") or "")) for raw in await fetch_all_lists(ctx)]
    else:
        lists = [(list_id, "")]
    params: dict[str, Any] = {"$top": PAGE, "$select": ",".join(TASK_FIELDS)}
    if not include_completed:
        params["$filter"] = "status ne 'completed'"
    hits: list[SearchHit] = []
    notes: list[str] = []
    scanned = 0
    headers = PREFER_UTC
    while index < len(lists):
        current, name = lists[index]
        with not_found(f"list {current}"):
            if url is None:
                body = await ctx.http.get_json(tasks_path(current), params=params, headers=headers)
            else:
                check_next_link(ctx, url)
                body = await ctx.http.get_json(url, headers=headers)
        page = values(ctx, body)
        for position in range(skip, len(page)):
            raw = page[position]
            scanned += 1
            matched = _where(raw, words)
            if matched is not None:
                task = read_task(raw, current, zone, notes)
                hits.append(SearchHit(**task.model_dump(), list_name=name or None, matched=matched))
            if len(hits) >= limit or scanned >= max_scanned:
                after = _after(index, url, position + 1, page, odata_next(body), len(lists))
                if after is not None and scanned >= max_scanned and len(hits) < limit:
                    notes.append(
                        f"scanned {scanned} tasks without finishing (Graph offers no text search for To Do); "
                        "pass next_cursor to scan on, or narrow with list_id"
                    )
                return SearchResult(
                    items=hits,
                    scanned=scanned,
                    next_cursor=encode_cursor(after) if after is not None else None,
                    time_zone=zone.key,
                    notes=list(dict.fromkeys(notes)),
                )
        url, skip = odata_next(body), 0
        if url is None:
            index += 1
    return SearchResult(items=hits, scanned=scanned, time_zone=zone.key, notes=list(dict.fromkeys(notes)))
