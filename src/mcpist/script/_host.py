"""Running one script: lend it a sandbox process, answer its tool calls, and word how it ended.

The sandbox only reports what happened; every error code is decided here. A tool error is the very
error the runner raised (kept here, named to the sandbox by reference), so a script cannot dress one
failure up as another, and a hidden tool fails a script exactly as a missing one does.
"""

from __future__ import annotations

import json
import logging
import signal
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from mcpist.config import ScriptSettings
from mcpist.errors import (
    ERRORS_BY_CODE,
    DeadlineExceeded,
    Internal,
    InvalidArgument,
    MCPistError,
    ResourceExhausted,
)

from ._pool import Lease, TooLarge, Worker, WorkerGone, WorkerPool
from ._shaping import NestingError, ScriptError, check_json

__all__ = ["ScriptHost", "ToolCall", "ToolRunner"]

logger = logging.getLogger("mcpist.script")

GRACE_S = 0.25
"""How long past the wall time the server waits before it kills the process (the sandbox stops itself first)."""
_FRAME_SLACK = 64 << 10


@dataclass(frozen=True)
class ToolCall:
    module: str
    tool: str
    params: dict[str, Any]
    account: str | None


ToolRunner = Callable[[ToolCall], Awaitable[Any]]
"""Runs one tool call of a script and returns its JSON-ready result; raises `MCPistError` for a tool error."""


class _Broken(Exception):
    """The sandbox process broke the message format; it is killed."""


class _Vanished(Exception):
    """The sandbox process ended before it answered anything of this script."""


class ScriptHost:
    """Runs `run_script` scripts in a warm pool of sandbox processes, under `settings`' limits."""

    def __init__(self, settings: ScriptSettings) -> None:
        self.settings = settings
        self.pool = WorkerPool(settings.workers, settings.memory_mb)

    def close(self) -> None:
        self.pool.close()

    async def run(self, source: str, args: dict[str, Any], runner: ToolRunner) -> Any:
        """Run `source`'s `main()` with `args` as a global; its return value, as JSON.

        Raises:
            InvalidArgument: the script is too long, has a syntax error, fails (with its line and column) or
                returns something that is not JSON.
            ResourceExhausted: it broke a limit (CPU, memory, tool calls, output, depth, nesting).
            DeadlineExceeded: it ran past the wall time.
            MCPistError: a tool it called with `call` or `call_all` failed: that tool's error, with the line.
            Unavailable: no sandbox process could be started.
            Internal: the sandbox process crashed.
        """
        s = self.settings
        size = len(source.encode())
        if size > s.max_script_bytes:
            raise InvalidArgument(
                f"the script is {size} bytes; the limit is {s.max_script_bytes}", {"field": "script", "bytes": size}
            )
        try:
            args = check_json(args, s.max_nesting, "args")
        except NestingError as exc:
            raise InvalidArgument(str(exc), {"field": "args"}) from None
        except ScriptError as exc:
            raise InvalidArgument(str(exc), {"field": "args"}) from None
        deadline: float | None = None
        for attempt in range(2):
            async with self.pool.lease() as lease:
                # waiting for a free process is not the script's time
                if deadline is None:
                    deadline = anyio.current_time() + s.wall_time_s + GRACE_S
                with anyio.move_on_at(deadline):
                    try:
                        return await _Run(s, runner).exchange(lease, source, args)
                    except _Vanished as exc:
                        # it ended before it said a word (killed while idle): nothing ran, so run it again once
                        if attempt:
                            raise _internal(f"two script sandbox processes ended at once (exit status {exc})") from None
                        continue
                raise _limit_error(s, "wall")
        raise AssertionError("unreachable")


class _Run:
    def __init__(self, settings: ScriptSettings, runner: ToolRunner) -> None:
        self.settings = settings
        self.runner = runner
        self.calls = 0
        self.errors: list[MCPistError] = []
        self.fatal: str | None = None
        self.heard = False

    async def exchange(self, lease: Lease, source: str, args: Any) -> Any:
        worker = lease.worker
        s = self.settings
        limits = {
            "cpu_time_s": s.cpu_time_s,
            "wall_time_s": s.wall_time_s,
            "max_depth": s.max_depth,
            "max_nesting": s.max_nesting,
            "max_output_bytes": s.max_output_bytes,
        }
        try:
            await worker.send({"op": "run", "script": source, "args": args, "limits": limits})
            while True:
                message = await worker.recv(s.max_output_bytes + _FRAME_SLACK)
                self.heard = True
                op = message.get("op")
                if op == "call":
                    await worker.send(await self._calls(message.get("calls")))
                elif op == "done":
                    break
                else:
                    raise _Broken(f"unexpected message {str(op)[:40]!r}")
        except TooLarge as exc:
            raise _limit_error(s, "output", {"bytes": exc.size}) from None
        except WorkerGone:
            raise await self._died(worker) from None
        except _Broken as exc:
            raise _internal(f"the script sandbox broke the message format ({exc})") from None
        error = message.get("error")
        if error is None:
            value = message.get("value")
            size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
            if size > s.max_output_bytes:
                raise _limit_error(s, "output", {"bytes": size})
            lease.keep()
            return value
        if not isinstance(error, dict):
            raise _internal("the script sandbox reported an unreadable error")
        if error.get("kind") not in ("limit", "crash"):
            lease.keep()  # the script failed, the process is fine
        raise self._error(error)

    async def _calls(self, raw: Any) -> dict[str, Any]:
        if not isinstance(raw, list) or not raw:
            raise _Broken("malformed tool calls")
        calls = [_tool_call(c) for c in raw]
        if self.fatal is not None or self.calls + len(calls) > self.settings.max_tool_calls:
            self.fatal = "calls"
            return {"op": "result", "fatal": "calls"}
        self.calls += len(calls)
        results: list[dict[str, Any]] = [{} for _ in calls]

        async def one(i: int, call: ToolCall) -> None:
            try:
                results[i] = {"ok": True, "value": await self.runner(call)}
            except MCPistError as exc:
                self.errors.append(exc)
                ref = len(self.errors) - 1
                results[i] = {"ok": False, "ref": ref, "error": {"code": exc.code, "message": exc.message}}

        if len(calls) == 1:
            await one(0, calls[0])
        else:
            limiter = anyio.CapacityLimiter(self.settings.max_concurrency)

            async def bounded(i: int, call: ToolCall) -> None:
                async with limiter:
                    await one(i, call)

            async with anyio.create_task_group() as tg:
                for i, call in enumerate(calls):
                    tg.start_soon(bounded, i, call)
        return {"op": "result", "results": results}

    def _error(self, error: dict[str, Any]) -> MCPistError:
        kind = error.get("kind")
        position = {k: error[k] for k in ("line", "column") if isinstance(error.get(k), int)}
        at = f" (line {position['line']}, column {position['column']})" if len(position) == 2 else ""
        message = str(error.get("message", ""))[:600]
        if self.fatal is not None:
            return _limit_error(self.settings, self.fatal, position)
        if kind == "tool":
            ref = error.get("ref")
            if not isinstance(ref, int) or not 0 <= ref < len(self.errors):
                return _internal("the script sandbox named an unknown tool error")
            exc = self.errors[ref]
            return ERRORS_BY_CODE.get(exc.code, Internal)(f"{exc.message}{at}", {**exc.data, **position})
        if kind == "limit":
            return _limit_error(self.settings, str(error.get("limit")), {**position, **_bytes(error)})
        if kind == "syntax":
            return InvalidArgument(f"syntax error{at}: {message}", {"field": "script", **position})
        if kind == "load":
            return InvalidArgument(
                f"the script failed before main() ran{at}: {message}", {"field": "script", **position}
            )
        if kind == "main":
            return InvalidArgument(f"the script must define main() with no parameters: {message}", {"field": "script"})
        if kind == "result":
            return InvalidArgument(f"main() must return JSON: {message}", {"field": "script"})
        if kind == "runtime":
            return InvalidArgument(f"the script failed{at}: {message}", position)
        return _internal(f"the script sandbox crashed: {message}")

    async def _died(self, worker: Worker) -> MCPistError | _Vanished:
        status = await worker.ended()
        if self.fatal is not None:
            return _limit_error(self.settings, self.fatal)
        if status == -signal.SIGXCPU:
            return _limit_error(self.settings, "cpu")
        if status == -signal.SIGABRT:
            # the interpreter aborts when an allocation fails past the address-space limit
            return _limit_error(self.settings, "memory")
        if not self.heard:
            return _Vanished(status)
        return _internal(f"the script sandbox process ended unexpectedly (exit status {status})")


def _tool_call(raw: Any) -> ToolCall:
    """Raises: _Broken: not a call as the sandbox sends one."""
    if not isinstance(raw, dict):
        raise _Broken("malformed tool call")
    module, tool, params, account = raw.get("module"), raw.get("tool"), raw.get("params"), raw.get("account")
    if not isinstance(module, str) or not isinstance(tool, str) or not isinstance(params, dict):
        raise _Broken("malformed tool call")
    if account is not None and not isinstance(account, str):
        raise _Broken("malformed tool call")
    return ToolCall(module, tool, params, account)


def _bytes(error: dict[str, Any]) -> dict[str, Any]:
    return {"bytes": error["bytes"]} if isinstance(error.get("bytes"), int) else {}


def _limit_error(s: ScriptSettings, limit: str, data: dict[str, Any] | None = None) -> MCPistError:
    data = dict(data or {})
    if limit == "wall":
        return DeadlineExceeded(
            f"the script did not finish within {s.wall_time_s:g} s", {"limit": "wall_time_s", **data}
        )
    messages = {
        "cpu": ("cpu_time_s", f"the script used more than {s.cpu_time_s:g} s of CPU time (an endless loop?)"),
        "memory": ("memory_mb", f"the script used more than {s.memory_mb} MiB of memory"),
        "calls": ("max_tool_calls", f"the script made more than {s.max_tool_calls} tool calls"),
        "output": ("max_output_bytes", f"the result of main() is over {s.max_output_bytes} bytes; return less"),
        "depth": ("max_depth", f"function calls nest deeper than {s.max_depth} (endless recursion?)"),
        "nesting": ("max_nesting", f"a value nests lists or objects deeper than {s.max_nesting} levels"),
    }
    if limit not in messages:
        return _internal(f"the script sandbox reported an unknown limit {limit[:40]!r}")
    setting, message = messages[limit]
    at = f" (line {data['line']}, column {data['column']})" if "line" in data and "column" in data else ""
    return ResourceExhausted(message + at, {"limit": setting, **data})


def _internal(what: str) -> Internal:
    request_id = uuid.uuid4().hex[:12]
    logger.error("%s (request id %s)", what, request_id)
    return Internal(
        f"internal error in the script sandbox; the server log has details under request id {request_id}",
        {"request_id": request_id},
    )
