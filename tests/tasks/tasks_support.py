"""Shared by the MCP Tasks tests: a probe module with slow tools, MCPist with it, clients of both
revisions and the few task calls the SDK client has no method for.

The SDK defines 2025-11-25 tasks as types only: its client checks a `tools/call` answer against
`CallToolResult`, so the task-augmented call goes out through the session's dispatcher here (the same
JSON-RPC connection, without that check); `tasks/*` go through `session.send_request`. On 2026-07-28
the SDK's client extension API (a `ResultClaim` on `resultType: "task"`) takes the task handle, and
its resolver polls `tasks/get` until the task is over, as a tasks-aware host would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, NotificationBinding, ResultClaim
from pydantic import BaseModel, ConfigDict

from mcpist.errors import ConnectRequired
from mcpist.modules import Module, ToolContext
from mcpist.modules.api import Account, AccountChoice, ApiKeyAuth, Caller, ResolvedAccount
from mcpist.runtime import Runtime
from mcpist.testing import FakeCredentials, in_process_client, running

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"

slow = Module("slow", summary="Test tools that wait on the test")
linked = Module("linked", summary="A module that needs an account", auth=ApiKeyAuth())


@dataclass
class Probe:
    started: list[str] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    release: anyio.Event = field(default_factory=anyio.Event)
    changed: anyio.Event = field(default_factory=anyio.Event)

    def bump(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def until(self, predicate: Any) -> None:
        with anyio.fail_after(10):
            while not predicate():
                await self.changed.wait()


_PROBE: list[Probe] = []


def probe() -> Probe:
    """A fresh probe (made inside the event loop: anyio events need one)."""
    _PROBE[:] = [Probe()]
    return _PROBE[0]


@slow.tool(read_only=True)
async def gate(ctx: ToolContext[Any], tag: str) -> dict[str, str]:
    """Wait until the test releases the gate; records when it started and whether it was stopped."""
    state = _PROBE[0]
    state.started.append(tag)
    state.bump()
    try:
        await state.release.wait()
    except BaseException:
        state.stopped.append(tag)
        state.bump()
        raise
    return {"tag": tag}


@slow.tool(read_only=True)
async def quick(ctx: ToolContext[Any], n: int) -> dict[str, int]:
    """Answer at once."""
    return {"n": n, "square": n * n}


@slow.tool(read_only=True)
async def refuse(ctx: ToolContext[Any]) -> None:
    """Fail with a tool error."""
    from mcpist.errors import Conflict

    raise Conflict("refused on purpose")


@linked.tool(read_only=True)
async def whoami(ctx: ToolContext[Any]) -> dict[str, Any]:
    """Name the account used."""
    assert ctx.account is not None
    return {"account": ctx.account.name}


class SwitchableAccounts:
    """Not connected until `connect()`; each refusal names a new elicitation."""

    def __init__(self) -> None:
        self.connected = False
        self.asked: list[str] = []

    def connect(self) -> None:
        self.connected = True

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> ResolvedAccount | None:
        if not self.connected:
            self.asked.append(f"el-{len(self.asked) + 1}")
            raise ConnectRequired(
                f"connect your {module.name} account to continue",
                service=module.name,
                connect_url="http://127.0.0.1:8765/connect/linked?state=abc",
                elicitation_id=self.asked[-1],
            )
        return ResolvedAccount(Account(service=module.name, name=account or "default"), FakeCredentials("s3cr3t"))

    async def usable(self, caller: Caller, module: Module) -> AccountChoice:
        return AccountChoice(("default",) if self.connected else (), "default" if self.connected else None)


@asynccontextmanager
async def world(data_dir: Path, database_url: str | None = None, **settings: Any) -> AsyncIterator[Runtime]:
    tasks = {"poll_interval_s": 0.05, "inline_s": 0, **settings.pop("tasks", {})}
    async with running([slow, linked], data_dir, database_url=database_url, tasks=tasks, **settings) as rt:
        yield rt


def as_token(rt: Runtime, token_id: str, user_id: str | None = None) -> Caller:
    return Caller(user_id=user_id or rt.owner.id, email=rt.owner.email, token_id=token_id)


# 2025-11-25


class StatusLog:
    """`notifications/tasks/status` a 2025-11-25 client received, by task id."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.changed = anyio.Event()

    async def on_status(self, params: types.TaskStatusNotificationParams) -> None:
        self.seen.append((params.task_id, params.status))
        self.changed.set()
        self.changed = anyio.Event()

    async def until(self, task_id: str, status: str) -> None:
        with anyio.fail_after(10):
            while (task_id, status) not in self.seen:
                await self.changed.wait()


class _StatusWatch(ClientExtension):
    identifier = "com.example/task-status"

    def __init__(self, log: StatusLog) -> None:
        self.log = log

    def notifications(self) -> list[NotificationBinding[Any]]:
        return [
            NotificationBinding(
                method="notifications/tasks/status",
                params_type=types.TaskStatusNotificationParams,
                handler=self.log.on_status,
            )
        ]


@asynccontextmanager
async def legacy(
    rt: Runtime, caller: Caller | None = None, log: StatusLog | None = None, **options: Any
) -> AsyncIterator[Client]:
    extensions = [_StatusWatch(log)] if log is not None else None
    async with in_process_client(rt, caller, mode="legacy", extensions=extensions, **options) as client:
        yield client


async def raw(client: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request and its raw result, without the SDK's check of core results."""
    session = client.session
    data: dict[str, Any] = {"method": method, "params": params}
    opts: dict[str, Any] = {}
    session._stamp(data, opts)  # type: ignore[arg-type]
    return await session._dispatcher.send_raw_request(method, data["params"], opts)  # type: ignore[arg-type]


async def start_task(client: Client, tool: str, arguments: dict[str, Any], ttl: int | None = 60_000) -> dict[str, Any]:
    """A task-augmented `tools/call`; the `task` of its `CreateTaskResult`."""
    task: dict[str, Any] = {} if ttl is None else {"ttl": ttl}
    answer = await raw(client, "tools/call", {"name": tool, "arguments": arguments, "task": task})
    created = types.CreateTaskResult.model_validate(answer)
    return created.task.model_dump(by_alias=True, mode="json", exclude_none=True)


async def get_task(client: Client, task_id: str) -> types.GetTaskResult:
    request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, types.GetTaskResult)


async def task_result(client: Client, task_id: str) -> types.CallToolResult:
    request = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
    return await client.session.send_request(request, types.CallToolResult)


async def list_tasks(client: Client, cursor: str | None = None) -> types.ListTasksResult:
    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
    return await client.session.send_request(types.ListTasksRequest(params=params), types.ListTasksResult)


async def cancel_task(client: Client, task_id: str) -> types.CancelTaskResult:
    request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, types.CancelTaskResult)


# 2026-07-28


class TaskHandle(types.Result):
    """`CreateTaskResult` of the tasks extension: `resultType: "task"` and the task's fields."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class DetailedTask(BaseModel):
    """A `tasks/get` answer on 2026-07-28 (kept whole: result, error and inputRequests are inline)."""

    model_config = ConfigDict(extra="allow")
    taskId: str
    status: str
    resultType: str
    ttlMs: int | None


class _GetTask(types.Request[types.GetTaskRequestParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: types.GetTaskRequestParams
    name_param = "taskId"


async def get_detailed(client: Client, task_id: str) -> DetailedTask:
    return await client.session.send_request(_GetTask(params=types.GetTaskRequestParams(task_id=task_id)), DetailedTask)


OVER = ("completed", "failed", "cancelled")


async def until_over(client: Client, task_id: str, statuses: tuple[str, ...] = OVER) -> DetailedTask:
    """Poll `tasks/get` (as a host does) until the task reaches one of `statuses`."""
    with anyio.fail_after(10):
        while True:
            task = await get_detailed(client, task_id)
            if task.status in statuses:
                return task
            await anyio.sleep(0.02)  # the poll interval a host would honour (tests poll fast)


class TasksExtension(ClientExtension):
    """A client of the tasks extension: resolves a task handle by polling `tasks/get`."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self._resolve)]

    async def _resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        with anyio.fail_after(10):
            while True:
                request = _GetTask(params=types.GetTaskRequestParams(task_id=handle.task_id))
                task = await ctx.session.send_request(request, DetailedTask)
                if task.status == "completed":
                    return types.CallToolResult.model_validate(task.model_extra["result"])  # type: ignore[index]
                if task.status in ("failed", "cancelled"):
                    raise RuntimeError(f"task {task.status}: {task.model_extra}")
                await anyio.sleep(0.02)


@asynccontextmanager
async def modern(rt: Runtime, caller: Caller | None = None, *, tasks: bool = True) -> AsyncIterator[Client]:
    extensions = [TasksExtension()] if tasks else None
    async with in_process_client(rt, caller, mode=MODERN, extensions=extensions) as client:
        yield client


async def start_modern(client: Client, tool: str, arguments: dict[str, Any]) -> TaskHandle:
    handle = await client.session.call_tool(tool, arguments, allow_claimed=True, allow_input_required=True)
    assert isinstance(handle, TaskHandle), handle
    return handle
