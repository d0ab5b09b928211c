"""The wire form of MCP tasks in each protocol revision MCPist speaks.

2025-11-25 (core spec, basic/utilities/tasks): capability `tasks: {list, cancel, requests: {tools:
{call}}}`; a `tools/call` carrying `params.task: {ttl}` answers `{task: Task}`; `tasks/get`,
`tasks/result`, `tasks/list`, `tasks/cancel`; `notifications/tasks/status`; `Task` has `ttl` and
`pollInterval`; a tool result with `isError` makes the task `failed`.

2026-07-28 (the extension `io.modelcontextprotocol/tasks`, SEP-2663): the server decides; a client
that lists the extension in its request's capabilities may get `{resultType: "task", ...Task}`;
`tasks/get` answers the task with its `result`, `error` or `inputRequests` inline; `tasks/update`
carries `inputResponses`; `tasks/cancel` is an empty acknowledgement; no `tasks/list` and no
`tasks/result`; `Task` has `ttlMs` and `pollIntervalMs`; a tool result with `isError` is `completed`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from mcpist.tasks import Status, TaskRecord

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
TASK_CANCELLED = -32000
"""`tasks/result` of a cancelled task: the request it stood for has no result (an implementation-defined code)."""
CAPABILITY_2025: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
NOT_FOUND = "Failed to retrieve task: Task not found"


def not_found() -> MCPError:
    """The one answer for a task that does not exist, has expired, or is another caller's."""
    return MCPError(types.INVALID_PARAMS, NOT_FOUND)


def missing_extension() -> MCPError:
    return MCPError(
        types.MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability",
        {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
    )


def timestamp(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def status_2025(record: TaskRecord) -> Status:
    # 2025-11-25: "for tool calls, failed includes results with isError set to true"
    return "failed" if record.status == "completed" and record.is_error else record.status


def task_2025(record: TaskRecord) -> dict[str, Any]:
    out: dict[str, Any] = {"taskId": record.id, "status": status_2025(record)}
    if record.message:
        out["statusMessage"] = record.message
    out.update(
        createdAt=timestamp(record.created_at),
        lastUpdatedAt=timestamp(record.updated_at),
        ttl=record.ttl_ms,
        pollInterval=record.poll_ms,
    )
    return out


def task_2026(record: TaskRecord) -> dict[str, Any]:
    out: dict[str, Any] = {"taskId": record.id, "status": record.status}
    if record.message:
        out["statusMessage"] = record.message
    out.update(
        createdAt=timestamp(record.created_at),
        lastUpdatedAt=timestamp(record.updated_at),
        ttlMs=record.ttl_ms,
        pollIntervalMs=record.poll_ms,
    )
    return out


def input_key(elicitation_id: str) -> str:
    return f"connect-{elicitation_id}"


def detailed_2026(record: TaskRecord) -> dict[str, Any]:
    """A `DetailedTask`: the task with its result, error or outstanding input requests inline."""
    out = task_2026(record)
    if record.status == "completed":
        out["result"] = record.result or {}
    elif record.status == "failed":
        out["error"] = record.error or {"code": types.INTERNAL_ERROR, "message": record.message or "failed"}
    elif record.status == "input_required" and record.pending_input:
        pending = record.pending_input
        params = {"mode": "url", "message": pending["message"], "url": pending["url"]}
        out["inputRequests"] = {input_key(pending["elicitationId"]): {"method": "elicitation/create", "params": params}}
    return out


def with_related_task(result: dict[str, Any], task_id: str) -> dict[str, Any]:
    meta = dict(result.get("_meta") or {})
    meta[RELATED_TASK] = {"taskId": task_id}
    return {**result, "_meta": meta}


def error_of(error: dict[str, Any] | None, fallback: str) -> MCPError:
    if not error or not isinstance(error.get("code"), int):
        return MCPError(types.INTERNAL_ERROR, fallback)
    return MCPError(error["code"], str(error.get("message") or fallback), error.get("data"))


def url_elicitation(error: MCPError) -> dict[str, Any] | None:
    """The URL elicitation a 2025-11-25 `-32042` error asks for: {message, url, elicitationId}."""
    if error.error.code != types.URL_ELICITATION_REQUIRED or not isinstance(error.error.data, dict):
        return None
    found = error.error.data.get("elicitations")
    if not isinstance(found, list) or not found or not isinstance(found[0], dict):
        return None
    first = found[0]
    if not all(isinstance(first.get(k), str) for k in ("message", "url", "elicitationId")):
        return None
    return {k: first[k] for k in ("message", "url", "elicitationId")}


def input_required_elicitation(result: dict[str, Any]) -> dict[str, Any] | None:
    """The URL elicitation a 2026-07-28 `InputRequiredResult` asks for (its id is the request state)."""
    if result.get("resultType") != "input_required" or not isinstance(result.get("requestState"), str):
        return None
    for request in (result.get("inputRequests") or {}).values():
        params = request.get("params") if isinstance(request, dict) else None
        if (
            request.get("method") == "elicitation/create"
            and isinstance(params, dict)
            and params.get("mode") == "url"
            and isinstance(params.get("message"), str)
            and isinstance(params.get("url"), str)
        ):
            return {"message": params["message"], "url": params["url"], "elicitationId": result["requestState"]}
    return None


def tool_error_text(result: dict[str, Any]) -> str | None:
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return str(block["text"])
    return None
