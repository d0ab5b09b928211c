"""A small Microsoft To Do behind `FakeUpstream` (checked against tests/vendor_specs/msgraph_todo.json).

It keeps time as Graph does: a dueDateTime or reminderDateTime written in some zone is stored as a UTC instant,
and read back in the zone of `Prefer: outlook.timezone` (named as the header named it) or else in UTC. A seeded
value marked `verbatim` comes back exactly as seeded (a Windows zone name, an unknown zone). Delta queries keep
a change sequence; `$skiptoken`/`$deltatoken` are the server's own link parameters.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo

import httpx

from mcpist.testing import FakeUpstream

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "msgraph_todo.json"
GRAPH = "https://graph.microsoft.com/v1.0"
CREATED = "2026-03-01T12:00:00.1234567Z"
FAKE_ZONES = {
    "Tokyo Standard Time": "Asia/Tokyo",
    "Eastern Standard Time": "America/New_York",
    "W. Europe Standard Time": "Europe/Berlin",
    "Pacific Standard Time": "America/Los_Angeles",
    "New Zealand Standard Time": "Pacific/Auckland",
    "Line Islands Standard Time": "Pacific/Kiritimati",
    "UTC": "UTC",
}
PREFER = re.compile(r'outlook\.timezone="([^"]+)"')
CLAUSE = re.compile(r"^(status|importance|dueDateTime/dateTime) (eq|ne|ge|lt) '([^']*)'$")


def graph_error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Any:
    return status, {"error": {"code": code, "message": message}}, headers or {}


def zone_of(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(FAKE_ZONES.get(name, name))
    except Exception:
        return None


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.0000000")


class Stored:
    """A dateTimeTimeZone as Graph keeps it: a UTC instant, or a seeded value returned verbatim."""

    def __init__(self, instant: datetime | None = None, verbatim: dict[str, str] | None = None) -> None:
        self.instant = instant
        self.verbatim = verbatim

    @classmethod
    def written(cls, value: dict[str, Any]) -> Stored:
        zone = zone_of(value.get("timeZone") or "UTC")
        if zone is None:
            raise ValueError(value.get("timeZone"))
        wall = datetime.fromisoformat(value["dateTime"][:19])
        return cls(instant=wall.replace(tzinfo=zone).astimezone(UTC))

    def render(self, prefer: str | None) -> dict[str, str]:
        if self.verbatim is not None:
            return dict(self.verbatim)
        assert self.instant is not None
        zone = zone_of(prefer) if prefer else None
        if zone is None:
            return {"dateTime": stamp(self.instant), "timeZone": "UTC"}
        return {"dateTime": stamp(self.instant.astimezone(zone)), "timeZone": prefer or "UTC"}

    def utc_text(self) -> str:
        if self.verbatim is not None:
            return self.verbatim["dateTime"][:19]
        assert self.instant is not None
        return self.instant.strftime("%Y-%m-%dT%H:%M:%S")


class World:
    """What the handlers serve. `honor_prefer` False answers in UTC whatever the request prefers."""

    def __init__(self) -> None:
        self.ids = itertools.count(1)
        self.seq = itertools.count(1)
        self.lists: dict[str, dict[str, Any]] = {}
        self.tasks: dict[str, dict[str, dict[str, Any]]] = {}
        self.removed: dict[str, list[tuple[int, str]]] = {}
        self.honor_prefer = True
        self.page_size = 10
        self.delta_page = 2
        self.expired_tokens: set[str] = set()
        self.faults: dict[str, list[Any]] = {}
        self.add_list("Tasks", wellknown="defaultList")

    # --- seeding -------------------------------------------------------------------------------------------

    def add_list(self, name: str, wellknown: str = "none") -> str:
        list_id = f"AAMkADlist{next(self.ids)}AAA="
        self.lists[list_id] = {
            "id": list_id,
            "displayName": name,
            "isOwner": True,
            "isShared": False,
            "wellknownListName": wellknown,
        }
        self.tasks[list_id] = {}
        return list_id

    def add_task(self, list_id: str, title: str, **fields: Any) -> str:
        task_id = f"AAMkADtask{next(self.ids)}AAA="
        task: dict[str, Any] = {
            "id": task_id,
            "title": title,
            "status": "notStarted",
            "importance": "normal",
            "isReminderOn": False,
            "categories": [],
            "body": {"content": "", "contentType": "text"},
            "createdDateTime": CREATED,
            "lastModifiedDateTime": CREATED,
            "_checklist": {},
            "_linked": {},
        }
        self._apply(task, fields)
        self.tasks[list_id][task_id] = task
        return task_id

    def fail(self, operation: str, reply: Any) -> None:
        """Answer the next request for `operation` ("GET /me/todo/lists") with `reply`."""
        self.faults.setdefault(operation, []).append(reply)

    # --- the store -----------------------------------------------------------------------------------------

    def _apply(self, task: dict[str, Any], fields: dict[str, Any]) -> None:
        for key, value in fields.items():
            if key in ("dueDateTime", "reminderDateTime", "completedDateTime", "startDateTime"):
                if value is None or isinstance(value, Stored):
                    task[f"_{key}"] = value
                else:
                    task[f"_{key}"] = Stored.written(value)
            else:
                task[key] = value
        if fields.get("status") == "completed" and not task.get("_completedDateTime"):
            task["_completedDateTime"] = Stored(datetime(2026, 3, 9, 0, 0, tzinfo=UTC))
        elif "status" in fields and fields["status"] != "completed":
            task["_completedDateTime"] = None
        task["_seq"] = next(self.seq)

    def render(self, task: dict[str, Any], prefer: str | None, expand: set[str] = frozenset()) -> dict[str, Any]:
        out = {k: v for k, v in task.items() if not k.startswith("_")}
        for key in ("dueDateTime", "reminderDateTime", "completedDateTime"):
            stored = task.get(f"_{key}")
            if stored is not None:
                out[key] = stored.render(prefer)
        if "checklistItems" in expand:
            out["checklistItems"] = list(task["_checklist"].values())
        if "linkedResources" in expand:
            out["linkedResources"] = list(task["_linked"].values())
        return out

    def prefer(self, request: httpx.Request) -> str | None:
        if not self.honor_prefer:
            return None
        found = PREFER.search(request.headers.get("prefer", ""))
        return found.group(1) if found else None

    def task(self, list_id: str, task_id: str) -> dict[str, Any] | None:
        return self.tasks.get(list_id, {}).get(task_id)

    # --- routes --------------------------------------------------------------------------------------------

    def install(self, fake: FakeUpstream) -> None:
        lists = "/me/todo/lists"
        one_list = lists + "/{todoTaskList-id}"
        tasks = one_list + "/tasks"
        one_task = tasks + "/{todoTask-id}"

        def route(method: str, path: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
            def register(handler: Callable[..., Any]) -> Callable[..., Any]:
                def guarded(request: httpx.Request, **params: str) -> Any:
                    pending = self.faults.get(f"{method} {path}")
                    if pending:
                        return pending.pop(0)
                    return handler(request, **params)

                fake.route(method, path)(guarded)
                return handler

            return register

        @route("GET", lists)
        def _lists(request: httpx.Request) -> Any:
            return self._page(request, lists, list(self.lists.values()))

        @route("POST", lists)
        def _create_list(request: httpx.Request) -> Any:
            list_id = self.add_list(_json(request)["displayName"])
            return 201, self.lists[list_id]

        @route("PATCH", one_list)
        def _rename(request: httpx.Request, todoTaskList_id: str) -> Any:
            if todoTaskList_id not in self.lists:
                return not_found()
            self.lists[todoTaskList_id].update(_json(request))
            return self.lists[todoTaskList_id]

        @route("DELETE", one_list)
        def _delete_list(request: httpx.Request, todoTaskList_id: str) -> Any:
            found = self.lists.get(todoTaskList_id)
            if found is None:
                return not_found()
            if found["wellknownListName"] == "defaultList":
                return graph_error(400, "invalidRequest", "The default list cannot be deleted.")
            del self.lists[todoTaskList_id], self.tasks[todoTaskList_id]
            return 204, None

        @route("GET", tasks)
        def _tasks(request: httpx.Request, todoTaskList_id: str) -> Any:
            if todoTaskList_id not in self.lists:
                return not_found()
            try:
                keep = _filter(request.url.params.get("$filter"))
            except ValueError as exc:
                return graph_error(400, "BadRequest", f"Invalid filter clause: {exc}")
            found = [t for t in self.tasks[todoTaskList_id].values() if keep(t)]
            order = request.url.params.get("$orderby")
            if order:
                field, _, direction = order.partition(" ")
                found.sort(key=lambda t: _sort_key(t, field), reverse=direction == "desc")
            rendered = [self.render(t, self.prefer(request)) for t in found]
            return self._page(request, f"{lists}/{quote(todoTaskList_id, safe='')}/tasks", rendered)

        @route("POST", tasks)
        def _create_task(request: httpx.Request, todoTaskList_id: str) -> Any:
            if todoTaskList_id not in self.lists:
                return not_found()
            body = _json(request)
            try:
                task_id = self.add_task(todoTaskList_id, body.pop("title"), **body)
            except ValueError as exc:
                return graph_error(400, "invalidRequest", f"Invalid time zone '{exc}'.")
            return 201, self.render(self.tasks[todoTaskList_id][task_id], self.prefer(request))

        @route("GET", one_task)
        def _task(request: httpx.Request, todoTaskList_id: str, todoTask_id: str) -> Any:
            task = self.task(todoTaskList_id, todoTask_id)
            if task is None:
                return not_found()
            expand = set((request.url.params.get("$expand") or "").split(","))
            return self.render(task, self.prefer(request), expand)

        @route("PATCH", one_task)
        def _update_task(request: httpx.Request, todoTaskList_id: str, todoTask_id: str) -> Any:
            task = self.task(todoTaskList_id, todoTask_id)
            if task is None:
                return not_found()
            self._apply(task, _json(request))
            return self.render(task, self.prefer(request))

        @route("DELETE", one_task)
        def _delete_task(request: httpx.Request, todoTaskList_id: str, todoTask_id: str) -> Any:
            if self.task(todoTaskList_id, todoTask_id) is None:
                return not_found()
            del self.tasks[todoTaskList_id][todoTask_id]
            self.removed.setdefault(todoTaskList_id, []).append((next(self.seq), todoTask_id))
            return 204, None

        @route("GET", tasks + "/microsoft.graph.delta()")
        def _delta(request: httpx.Request, todoTaskList_id: str) -> Any:
            return self._delta(request, todoTaskList_id)

        self._install_items(route, one_task, "checklistItems", "_checklist", "ci")
        self._install_items(route, one_task, "linkedResources", "_linked", "lr")

    def _install_items(self, route: Any, one_task: str, name: str, key: str, prefix: str) -> None:
        many = f"{one_task}/{name}"
        one = many + "/{" + ("checklistItem-id" if name == "checklistItems" else "linkedResource-id") + "}"

        def items_of(list_id: str, task_id: str) -> dict[str, dict[str, Any]] | None:
            task = self.task(list_id, task_id)
            return None if task is None else task[key]

        @route("GET", many)
        def _list(request: httpx.Request, todoTaskList_id: str, todoTask_id: str) -> Any:
            items = items_of(todoTaskList_id, todoTask_id)
            return not_found() if items is None else {"value": list(items.values())}

        @route("POST", many)
        def _add(request: httpx.Request, todoTaskList_id: str, todoTask_id: str) -> Any:
            items = items_of(todoTaskList_id, todoTask_id)
            if items is None:
                return not_found()
            item_id = f"{prefix}-{next(self.ids)}"
            item = {"id": item_id, **_json(request)}
            if name == "checklistItems":
                item = {"isChecked": False, "createdDateTime": CREATED, **item}
            items[item_id] = item
            return 201, item

        def _one(request: httpx.Request, todoTaskList_id: str, todoTask_id: str, **ids: str) -> Any:
            items = items_of(todoTaskList_id, todoTask_id)
            item_id = next(iter(ids.values()))
            if items is None or item_id not in items:
                return not_found()
            if request.method == "DELETE":
                del items[item_id]
                return 204, None
            items[item_id].update(_json(request))
            if name == "checklistItems" and "isChecked" in _json(request):
                checked = _json(request)["isChecked"]
                items[item_id]["checkedDateTime"] = "2026-03-09T10:00:00Z" if checked else None
            return items[item_id]

        for method in ("PATCH", "DELETE"):
            route(method, one)(_one)

    def _page(self, request: httpx.Request, path: str, items: list[Any]) -> Any:
        params = request.url.params
        top = int(params.get("$top") or self.page_size)
        skip = int(params.get("$skip") or 0)
        body: dict[str, Any] = {"value": items[skip : skip + top]}
        if skip + top < len(items):
            query = {k: v for k, v in params.multi_items() if k != "$skip"} | {"$skip": str(skip + top)}
            body["@odata.nextLink"] = f"{GRAPH}{path}?{urlencode(query, safe='$,/')}"
        return body

    def _delta(self, request: httpx.Request, list_id: str) -> Any:
        if list_id not in self.lists:
            return not_found()
        params = request.url.params
        token = params.get("$deltatoken") or params.get("$skiptoken")
        if token in self.expired_tokens:
            return graph_error(410, "syncStateNotFound", "The sync state generation is not found.")
        since, offset = 0, 0
        if params.get("$deltatoken"):
            since = int(params["$deltatoken"].removeprefix("d"))
        elif params.get("$skiptoken"):
            since_text, offset_text = params["$skiptoken"].removeprefix("s").split("-")
            since, offset = int(since_text), int(offset_text)
        changed: list[dict[str, Any]] = [
            self.render(t, self.prefer(request))
            for t in sorted(self.tasks[list_id].values(), key=lambda t: t["_seq"])
            if t["_seq"] > since
        ]
        if since:
            changed += [
                {"id": i, "@removed": {"reason": "deleted"}} for s, i in self.removed.get(list_id, []) if s > since
            ]
        base = f"{GRAPH}/me/todo/lists/{list_id}/tasks/microsoft.graph.delta()"
        body: dict[str, Any] = {"value": changed[offset : offset + self.delta_page]}
        if offset + self.delta_page < len(changed):
            body["@odata.nextLink"] = f"{base}?$skiptoken=s{since}-{offset + self.delta_page}"
        else:
            now = max(
                [t["_seq"] for t in self.tasks[list_id].values()]
                + [s for s, _ in self.removed.get(list_id, [])]
                + [since]
            )
            body["@odata.deltaLink"] = f"{base}?$deltatoken=d{now}"
        return body


def not_found() -> Any:
    return graph_error(404, "ErrorItemNotFound", "The specified object was not found in the store.")


def _json(request: httpx.Request) -> dict[str, Any]:
    found = json.loads(request.content or b"{}")
    assert isinstance(found, dict)
    return found


def _filter(text: str | None) -> Callable[[dict[str, Any]], bool]:
    if not text:
        return lambda task: True
    tests: list[Callable[[dict[str, Any]], bool]] = []
    for clause in text.split(" and "):
        found = CLAUSE.match(clause.strip())
        if found is None:
            raise ValueError(clause)
        field, op, value = found.groups()
        tests.append(_clause(field, op, value))
    return lambda task: all(test(task) for test in tests)


def _clause(field: str, op: str, value: str) -> Callable[[dict[str, Any]], bool]:
    def get(task: dict[str, Any]) -> str | None:
        if field == "dueDateTime/dateTime":
            stored = task.get("_dueDateTime")
            return None if stored is None else stored.utc_text()  # Graph compares what it stored: UTC
        return str(task.get(field))

    def test(task: dict[str, Any]) -> bool:
        have = get(task)
        if have is None:
            return False
        return {"eq": have == value, "ne": have != value, "ge": have >= value, "lt": have < value}[op]

    return test


def _sort_key(task: dict[str, Any], field: str) -> str:
    if field == "dueDateTime/dateTime":
        stored = task.get("_dueDateTime")
        return "9999" if stored is None else stored.utc_text()
    return str(task.get(field, ""))


def fake_upstream(*, allow_unknown_query: bool = False) -> FakeUpstream:
    return FakeUpstream.from_file(SPEC, base_url=GRAPH, allow_unknown_query=allow_unknown_query)
