"""MCP Tasks on the wire: task-augmented `tools/call` and the `tasks/*` methods, for both revisions.

A task runs the very `tools/call` the client sent, through the server's own handler chain, in the
background (`mcpist.tasks.TaskRunner`): what it stores is exactly what the request would have answered
(the `CallToolResult` in wire form, or the JSON-RPC error), so `tasks/result` and `tasks/get` hand it
back unchanged. A call that needs an account connected first (a URL elicitation) leaves the task
`input_required` until the user finishes in the browser, then runs the call again. The SDK dispatches
no task methods itself (2025-11-25 tasks are types-only in it), so the task-augmented `tools/call`
is taken at the middleware tier, above its per-revision result check; see `taskwire` for the formats.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field, ValidationError

from mcpist.elicitations import PendingElicitations
from mcpist.errors import InvalidArgument, ResourceExhausted
from mcpist.modules.api import Caller
from mcpist.tasks import Outcome, Owner, TaskControl, TaskRecord, TaskRunner

from . import taskwire as wire
from .metatools import BATCH, CALL, RUN_SCRIPT

__all__ = ["TASK_TOOLS", "install_tasks"]

logger = logging.getLogger("mcpist.protocol")

TASK_TOOLS = frozenset({CALL, BATCH, RUN_SCRIPT})
"""The meta-tools that can run long, and so declare `execution.taskSupport: "optional"`."""

Context = ServerRequestContext[Any, Any]


class UpdateTaskParams(types.RequestParams):
    """`tasks/update` (2026-07-28)."""

    task_id: str
    input_responses: dict[str, Any] = Field(default_factory=dict)


class _Waiter:
    """Waits for the user to finish a URL elicitation (connect an account) in this process."""

    def __init__(self, forward: Any | None) -> None:
        self.done = anyio.Event()
        self.declined = False
        self._forward = forward

    async def send_elicit_complete(self, elicitation_id: str) -> None:
        self.done.set()
        if self._forward is not None:  # the 2025-11-25 requestor also hears of it
            await self._forward.send_elicit_complete(elicitation_id)

    def decline(self) -> None:
        self.declined = True
        self.done.set()


def _modern(ctx: Context) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _declared(ctx: Context) -> bool:
    """The request lists the tasks extension among its client capabilities (2026-07-28)."""
    try:
        caps = ctx.session.client_capabilities
    except Exception:
        return False
    return caps is not None and caps.extensions is not None and wire.TASKS_EXTENSION in caps.extensions


def _check_params(ctx: Context) -> None:
    """Refuse a malformed call at once, as without a task, rather than leave the task to fail on it."""
    try:
        types.CallToolRequestParams.model_validate(ctx.params or {}, by_name=False)
    except ValidationError:
        raise MCPError(types.INVALID_PARAMS, "Invalid request parameters") from None


class TaskProtocol:
    """The task methods of one MCP server, over the runtime's `TaskRunner`."""

    def __init__(
        self,
        server: Server[Any],
        runner: TaskRunner,
        elicitations: PendingElicitations,
        identify: Callable[[Context], Caller],
        inline_s: float,
    ) -> None:
        self.server = server
        self.runner = runner
        self.elicitations = elicitations
        self.identify = identify
        self.inline_s = inline_s
        self._waiting: dict[str, _Waiter] = {}

    def owner(self, ctx: Context) -> Owner:
        caller = self.identify(ctx)
        return Owner(caller.user_id, caller.token_id)

    # the tier above the SDK's result check: task-augmented tools/call, and the 2025-11-25 capability

    async def middleware(self, ctx: Context, call_next: CallNext) -> HandlerResult:
        if ctx.method == "initialize":
            return self._advertise(await call_next(ctx))
        if ctx.method != "tools/call" or ctx.request_id is None or not isinstance(ctx.params, Mapping):
            return await call_next(ctx)
        if _modern(ctx):
            if _declared(ctx) and ctx.params.get("name") in TASK_TOOLS:
                return await self._maybe_task(ctx, call_next)
            return await call_next(ctx)
        task = ctx.params.get("task")
        if task is None or ctx.session.client_params is None:  # not a task, or before initialize: the SDK's
            return await call_next(ctx)
        name = ctx.params.get("name")
        if name not in TASK_TOOLS:
            raise MCPError(types.METHOD_NOT_FOUND, f"tool {name!r} does not support task-augmented execution")
        ttl = task.get("ttl") if isinstance(task, Mapping) else None
        if not isinstance(task, Mapping) or (ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool))):
            raise MCPError(types.INVALID_PARAMS, "params.task must be an object with an integer ttl (milliseconds)")
        inner = replace(ctx, params={k: v for k, v in ctx.params.items() if k != "task"})
        _check_params(inner)
        try:
            record = await self.runner.submit(
                self.owner(ctx), str(name), self._job(inner, call_next), ttl_ms=ttl, listener=self._notifier(ctx)
            )
        except ResourceExhausted as exc:
            raise MCPError(-32000, f"{exc.code}: {exc.message}", exc.to_dict()) from None
        return {"task": wire.task_2025(record)}

    def _advertise(self, result: HandlerResult) -> HandlerResult:
        if isinstance(result, dict) and result.get("protocolVersion") == "2025-11-25":
            capabilities = result.setdefault("capabilities", {})
            if isinstance(capabilities, dict):
                capabilities["tasks"] = wire.CAPABILITY_2025
        return result

    async def _maybe_task(self, ctx: Context, call_next: CallNext) -> HandlerResult:
        """2026-07-28: the call runs as a task; if it ends within `inline_s`, its result comes back as usual."""
        _check_params(ctx)
        owner = self.owner(ctx)
        try:
            name = str((ctx.params or {}).get("name"))
            record = await self.runner.submit(owner, name, self._job(ctx, call_next))
        except ResourceExhausted:
            return await call_next(ctx)  # the server decides: over the quota, no task
        finished = False
        with anyio.move_on_after(self.inline_s):  # only an event is awaited here, never the database
            await self.runner.join(record.id)
            finished = True
        current = await self.runner.get(record.id, owner) or record
        if finished and current.status in ("completed", "failed"):
            await self.runner.forget(current.id)
            if current.result is None:
                raise wire.error_of(current.error, current.message or "the call failed")
            return current.result
        out = {"resultType": "task", **wire.task_2026(current)}
        out["_meta"] = {types.SERVER_INFO_META_KEY: self.server.server_info_stamp}
        return out

    def _notifier(self, ctx: Context) -> Callable[[TaskRecord], Any]:
        session = ctx.session

        async def notify(record: TaskRecord) -> None:
            notification = types.TaskStatusNotification(
                params=types.TaskStatusNotificationParams.model_validate(wire.task_2025(record))
            )
            await session.send_notification(cast(types.ServerNotification, notification))

        return notify

    def _job(self, ctx: Context, call_next: CallNext) -> Callable[[TaskControl], Any]:
        async def job(control: TaskControl) -> Outcome:
            while True:
                try:
                    result = await call_next(ctx)
                except MCPError as exc:
                    pending = wire.url_elicitation(exc)
                    if pending is None:
                        body = exc.error.model_dump(by_alias=True, mode="json", exclude_none=True)
                        return Outcome(error=body, message=exc.error.message)
                    result = None
                except ValidationError:
                    message = "Invalid request parameters"
                    return Outcome(error={"code": types.INVALID_PARAMS, "message": message}, message=message)
                else:
                    if not isinstance(result, dict):
                        raise TypeError(f"tools/call answered {type(result).__name__}")
                    pending = wire.input_required_elicitation(result)
                if pending is None and result is not None:
                    failed = bool(result.get("isError"))
                    return Outcome(
                        result=result, is_error=failed, message=wire.tool_error_text(result) if failed else None
                    )
                assert pending is not None
                if not await self._await_input(control, pending, forward=None if _modern(ctx) else ctx.session):
                    message = "the user declined to connect the account"
                    error = {"code": types.URL_ELICITATION_REQUIRED, "message": message}
                    return Outcome(error=error, message=message)

        return job

    async def _await_input(self, control: TaskControl, pending: dict[str, Any], forward: Any | None) -> bool:
        """Hold the task in `input_required` until the user finishes (True) or declines (False)."""
        waiter = _Waiter(forward)
        self.elicitations.add(pending["elicitationId"], waiter)
        self._waiting[control.task_id] = waiter
        try:
            await control.input_required(pending["message"], pending)
            await waiter.done.wait()
        finally:
            self._waiting.pop(control.task_id, None)
        if waiter.declined:
            return False
        await control.working()
        return True

    # tasks/* request handlers

    async def get(self, ctx: Context, params: types.GetTaskRequestParams) -> dict[str, Any]:
        self._check_extension(ctx)
        record = await self.runner.get(params.task_id, self.owner(ctx))
        if record is None:
            raise wire.not_found()
        return wire.detailed_2026(record) if _modern(ctx) else wire.task_2025(record)

    async def result(self, ctx: Context, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        self._legacy_only(ctx)
        owner = self.owner(ctx)
        asked: set[str] = set()

        def ready(r: TaskRecord) -> bool:
            pending = r.pending_input if r.status == "input_required" else None
            return r.terminal or (pending is not None and pending.get("elicitationId") not in asked)

        while True:
            record = await self.runner.wait(params.task_id, owner, ready)
            if record is None:
                raise wire.not_found()
            if record.terminal:
                break
            assert record.pending_input is not None
            asked.add(record.pending_input["elicitationId"])
            await self._elicit(ctx, record)
        if record.status == "cancelled":
            raise MCPError(
                wire.TASK_CANCELLED, f"Task cancelled: {record.message or 'cancelled'}", {"taskId": record.id}
            )
        if record.result is not None:
            return wire.with_related_task(record.result, record.id)
        raise wire.error_of(record.error, record.message or "the task failed")

    async def _elicit(self, ctx: Context, record: TaskRecord) -> None:
        """2025-11-25: put the pending URL elicitation to the requestor on its `tasks/result` stream."""
        pending = record.pending_input or {}
        params = types.ElicitRequestURLParams.model_validate(
            {
                "mode": "url",
                "message": pending.get("message", ""),
                "url": pending.get("url", ""),
                "elicitationId": pending.get("elicitationId", ""),
                "_meta": {wire.RELATED_TASK: {"taskId": record.id}},
            }
        )
        try:
            answer = await ctx.session.send_request(
                types.ElicitRequest(params=params),
                types.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
            )
        except Exception:  # a client without URL elicitation still sees input_required in tasks/get
            logger.debug("task %s: the URL elicitation could not be put to the client", record.id, exc_info=True)
            return
        if answer.action != "accept" and (waiter := self._waiting.get(record.id)) is not None:
            waiter.decline()

    async def list(self, ctx: Context, params: types.PaginatedRequestParams) -> dict[str, Any]:
        self._legacy_only(ctx)
        try:
            found, cursor = await self.runner.page(self.owner(ctx), params.cursor)
        except InvalidArgument as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message) from None
        out: dict[str, Any] = {"tasks": [wire.task_2025(r) for r in found]}
        if cursor is not None:
            out["nextCursor"] = cursor
        return out

    async def cancel(self, ctx: Context, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        self._check_extension(ctx)
        owner = self.owner(ctx)
        try:
            record = await self.runner.cancel(params.task_id, owner)
        except InvalidArgument as exc:
            if _modern(ctx):
                return {}  # 2026-07-28: an acknowledgement; the task ended otherwise
            raise MCPError(types.INVALID_PARAMS, exc.message) from None
        if record is None:
            raise wire.not_found()
        waiter = self._waiting.get(record.id)
        if waiter is not None:
            waiter.decline()
        return {} if _modern(ctx) else wire.task_2025(record)

    async def update(self, ctx: Context, params: UpdateTaskParams) -> dict[str, Any]:
        if not _modern(ctx):
            raise MCPError(types.METHOD_NOT_FOUND, "Method not found", "tasks/update")
        self._check_extension(ctx)
        record = await self.runner.get(params.task_id, self.owner(ctx))
        if record is None:
            raise wire.not_found()
        pending = record.pending_input
        if record.status == "input_required" and pending:
            answer = params.input_responses.get(wire.input_key(pending["elicitationId"]))
            action = answer.get("action") if isinstance(answer, dict) else None
            waiter = self._waiting.get(record.id)
            if action in ("decline", "cancel") and waiter is not None:
                waiter.decline()
        return {}

    def _check_extension(self, ctx: Context) -> None:
        if _modern(ctx) and not _declared(ctx):
            raise wire.missing_extension()

    def _legacy_only(self, ctx: Context) -> None:
        if _modern(ctx):
            raise MCPError(types.METHOD_NOT_FOUND, "Method not found", ctx.method)


def install_tasks(
    server: Server[Any],
    runner: TaskRunner | None,
    elicitations: PendingElicitations,
    identify: Callable[[Context], Caller],
) -> None:
    """Serve MCP tasks on `server` (nothing when the runtime runs no `TaskRunner`)."""
    if runner is None:
        return
    tasks = TaskProtocol(server, runner, elicitations, identify, runner.settings.inline_s)
    server.middleware.append(tasks.middleware)
    server.extensions[wire.TASKS_EXTENSION] = {}
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, tasks.get)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, tasks.result)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, tasks.list)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, tasks.cancel)
    server.add_request_handler("tasks/update", UpdateTaskParams, tasks.update)
