"""Running a planned batch: each task starts as soon as its last dependency succeeds."""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import replace
from typing import Any

import anyio
from anyio.abc import TaskGroup

from mcpist.errors import DeadlineExceeded, Internal, InvalidArgument, MCPistError

from ._model import DEFAULT_LIMITS, BatchLimits, Precheck, Task, TaskRunner
from ._parse import PlannedTask, plan_batch
from ._result import BatchResult, answer_bytes, omitted_entry
from ._template import ParamError, resolve_params

__all__ = ["run_batch"]

logger = logging.getLogger("mcpist.batch")

_UNSET: Any = object()


async def run_batch(
    text: str,
    runner: TaskRunner,
    limits: BatchLimits = DEFAULT_LIMITS,
    precheck: Precheck | None = None,
) -> BatchResult:
    """Validate a JSONL batch, then run it.

    A failing task stops only the tasks that depend on it; nothing is rolled back.
    Cancelling the caller cancels every running task.

    Raises:
        InvalidArgument: the batch is refused (see `parse_batch`); nothing ran.
        MCPistError: whatever `precheck` raises, with `line` and `task` added to its data; nothing ran.
    """
    plan = plan_batch(text, limits)
    if precheck is not None:
        for planned in plan:
            try:
                precheck(planned.task)
            except MCPistError as exc:
                exc.data.setdefault("line", planned.task.line)
                exc.data.setdefault("task", planned.task.id)
                raise
    return await _Run(plan, runner, limits).execute()


class _Run:
    def __init__(self, plan: list[PlannedTask], runner: TaskRunner, limits: BatchLimits) -> None:
        self.plan = plan
        self.runner = runner
        self.limits = limits
        self.by_id = {p.task.id: p for p in plan}
        self.dependents: dict[str, list[str]] = {p.task.id: [] for p in plan}
        self.waiting = {p.task.id: len(p.task.after) for p in plan}
        for p in plan:
            for dep in p.task.after:
                self.dependents[dep].append(p.task.id)
        self.outputs: dict[str, tuple[Any, int]] = {}
        self.failed: dict[str, MCPistError] = {}
        self.skipped: set[str] = set()
        self.limiter = anyio.CapacityLimiter(limits.max_concurrency)

    async def execute(self) -> BatchResult:
        async with anyio.create_task_group() as tg:
            for p in self.plan:
                if not p.task.after:
                    tg.start_soon(self._run, tg, p, name=f"batch task {p.task.id}")
        return self._result()

    async def _run(self, tg: TaskGroup, planned: PlannedTask) -> None:
        task = planned.task
        try:
            self.outputs[task.id] = await self._attempt(planned)
        except MCPistError as exc:
            self.failed[task.id] = exc
            self._skip_dependents(task.id)
            return
        for dependent in self.dependents[task.id]:
            self.waiting[dependent] -= 1
            if self.waiting[dependent] == 0 and dependent not in self.skipped:
                tg.start_soon(self._run, tg, self.by_id[dependent], name=f"batch task {dependent}")

    def _skip_dependents(self, task_id: str) -> None:
        stack = list(self.dependents[task_id])
        while stack:
            dependent = stack.pop()
            if dependent not in self.skipped:
                self.skipped.add(dependent)
                stack.extend(self.dependents[dependent])

    async def _attempt(self, planned: PlannedTask) -> tuple[Any, int]:
        task = planned.task
        try:
            params = self._resolve(planned)
            result = _UNSET
            async with self.limiter:
                # Started inside the limiter: waiting for a free slot is not the task's time.
                with anyio.move_on_after(self.limits.task_timeout_s):
                    result = await self.runner(task, params)
            if result is _UNSET:
                raise DeadlineExceeded(
                    f"timed out after {self.limits.task_timeout_s:g} s",
                    {"timeout_s": self.limits.task_timeout_s},
                )
            return self._settle(result)
        except MCPistError:
            raise
        except Exception:
            error_id = secrets.token_hex(4)
            logger.exception(
                "batch task %r (%s.%s) failed unexpectedly [error %s]", task.id, task.module, task.tool, error_id
            )
            raise Internal(
                f"unexpected error; the server log has details (error id {error_id})", {"error_id": error_id}
            ) from None

    def _resolve(self, planned: PlannedTask) -> dict[str, Any]:
        outputs = {dep: self.outputs[dep][0] for dep in planned.task.after}
        try:
            params: dict[str, Any] = resolve_params(
                planned.params, outputs, self.limits.max_result_bytes, self.limits.max_expression_cost
            )
        except ParamError as exc:
            data = {"field": exc.field, **({"expression": exc.expression} if exc.expression else {})}
            raise InvalidArgument(f"{exc.field}: {exc.message}", data) from None
        return params

    def _settle(self, result: Any) -> tuple[Any, int]:
        """The result as plain JSON types, detached from the runner's objects, and its size."""
        encoded = json.dumps(result, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
        limit = self.limits.max_result_bytes
        if len(encoded) > limit:
            raise InvalidArgument(
                f"the result is {len(encoded)} bytes, over the {limit}-byte limit; ask the tool for less",
                {"bytes": len(encoded), "limit": limit},
            )
        return json.loads(encoded), len(encoded)

    def _blocker(self, task: Task) -> str:
        return next(dep for dep in task.after if dep in self.failed or dep in self.skipped)

    def _result(self) -> BatchResult:
        """The answer, bounded once as a whole: each output's size was counted when it settled, and
        the failures, the summary and each omission take their share of the same budget."""
        limit = self.limits.max_output_bytes
        base = BatchResult(
            tasks=len(self.plan),
            failed={p.task.id: self.failed[p.task.id] for p in self.plan if p.task.id in self.failed},
            skipped={p.task.id: self._blocker(p.task) for p in self.plan if p.task.id in self.skipped},
            max_output_bytes=limit,
        )
        wanted = [
            (p.task.id, *self.outputs[p.task.id]) for p in self.plan if p.task.output and p.task.id in self.outputs
        ]
        # room is kept for listing every output as omitted (`"omitted":{}` and a comma, each entry with
        # its key and comma); returning one instead frees its entry
        omission = {
            task: answer_bytes(task) + 2 + answer_bytes(omitted_entry(size, limit))
            for task, size in ((t, s) for t, _, s in wanted)
        }
        budget = limit // self.limits.answer_copies - answer_bytes(base.to_dict())
        budget -= sum(omission.values()) + (13 if wanted else 0)
        results: dict[str, Any] = {}
        omitted: dict[str, int] = {}
        for task, value, size in wanted:
            cost = answer_bytes(task) + 2 + size
            # returning an output no larger than its omission entry never costs room
            if cost - omission[task] <= max(budget, 0):
                results[task] = value
                budget += omission[task] - cost
            else:
                omitted[task] = size
        return replace(base, results=results, omitted=omitted)
