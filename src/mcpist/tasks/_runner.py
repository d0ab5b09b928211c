"""Running tasks in the background of this process, stopping them, and waiting for them anywhere.

A task's work runs in a background task of the runner, inside a cancel scope of its own: `cancel` cancels that
scope, so a batch or script stops where it is and starts no further tool call. While it runs, its row
holds a lease this process renews; the sweep (every third of `lease_s`) renews the leases, stops local
work whose row was cancelled by another replica or expired, fails the tasks of processes that died
(their lease ran out) and deletes expired tasks. `wait` wakes on local status changes and otherwise
reads the database every poll interval, so any replica can wait for any task.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.config import TasksSettings
from mcpist.errors import ResourceExhausted

from ._store import Outcome, Owner, TaskRecord, TaskStore

__all__ = ["Job", "Listener", "TaskControl", "TaskRunner"]

logger = logging.getLogger("mcpist.tasks")

STOPPED = "the server stopped before this task finished"
CANCELLED = "The task was cancelled by request."


class TaskControl:
    """What a task's work may tell about itself while it runs."""

    def __init__(self, runner: TaskRunner, task_id: str) -> None:
        self._runner = runner
        self.task_id = task_id

    async def input_required(self, message: str, pending_input: dict[str, Any]) -> None:
        """The work waits on the user (a URL elicitation, say): `input_required`, holding what it waits on."""
        await self._runner._moved(
            await self._runner.store.set_status(self.task_id, "input_required", message, pending_input)
        )

    async def working(self) -> None:
        await self._runner._moved(await self._runner.store.set_status(self.task_id, "working"))


Job = Callable[[TaskControl], Awaitable[Outcome]]
"""A task's work: returns how its request ended (never raises for an expected failure)."""
Listener = Callable[[TaskRecord], Awaitable[None]]
"""Told each new status of one task (its requestor's session, for status notifications)."""


@dataclass
class _Local:
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)
    changed: anyio.Event = field(default_factory=anyio.Event)
    listener: Listener | None = None


class TaskRunner:
    """Tasks of this process: submitted, run, cancelled, waited for (see the module docstring)."""

    def __init__(self, store: TaskStore, settings: TasksSettings) -> None:
        self.store = store
        self.settings = settings
        self.id = uuid.uuid4().hex
        self._local: dict[str, _Local] = {}
        # plain asyncio tasks, not a task group around the caller's block: a task group would wrap every
        # exception the block raises (a CLI command's Conflict, say) into an ExceptionGroup
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper = anyio.CancelScope()
        self._open = False

    @classmethod
    @asynccontextmanager
    async def running(cls, engine: AsyncEngine, settings: TasksSettings) -> AsyncIterator[TaskRunner]:
        """A runner for the life of the block; on the way out its unfinished tasks fail (the server stopped)."""
        runner = cls(TaskStore(engine), settings)
        await runner.sweep()
        runner._open = True
        runner._spawn(runner._sweeping())
        try:
            yield runner
        finally:
            runner._open = False
            with anyio.CancelScope(shield=True):
                await runner._stop()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _stop(self) -> None:
        self._sweeper.cancel()
        for local in list(self._local.values()):
            local.scope.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.store.fail_runner(self.id, STOPPED)

    def ttl_ms(self, requested_ms: int | None) -> int:
        """The ttl a task gets: the one asked for, within 1 s and `max_ttl_s`; else `default_ttl_s`."""
        if requested_ms is None:
            return int(self.settings.default_ttl_s * 1000)
        return max(1000, min(int(requested_ms), int(self.settings.max_ttl_s * 1000)))

    @property
    def poll_ms(self) -> int:
        return int(self.settings.poll_interval_s * 1000)

    async def submit(
        self,
        owner: Owner,
        tool: str,
        job: Job,
        *,
        ttl_ms: int | None = None,
        listener: Listener | None = None,
    ) -> TaskRecord:
        """Create a task (durably: `get` finds it once this returns) and start its work.

        Raises:
            ResourceExhausted: the owner has `max_per_caller` tasks working already.
        """
        if not self._open:
            raise RuntimeError("the task runner is not running")
        limit = self.settings.max_per_caller
        if await self.store.count_live(owner) >= limit:
            raise ResourceExhausted(
                f"this caller already has {limit} tasks working, its limit (tasks.max_per_caller); "
                "wait for one to finish or cancel one",
                {"quota": "tasks.max_per_caller", "limit": limit},
            )
        record = await self.store.create(
            owner,
            tool,
            ttl_ms=self.ttl_ms(ttl_ms),
            poll_ms=self.poll_ms,
            runner=self.id,
            lease_s=self.settings.lease_s,
        )
        local = _Local(listener=listener)
        self._local[record.id] = local
        self._spawn(self._run(record.id, job, local))
        return record

    async def _run(self, task_id: str, job: Job, local: _Local) -> None:
        try:
            outcome: Outcome | None = None
            with local.scope:
                try:
                    outcome = await job(TaskControl(self, task_id))
                except Exception:
                    request_id = uuid.uuid4().hex[:12]
                    logger.exception("task %s failed unexpectedly (request id %s)", task_id, request_id)
                    message = f"internal error; the server log has details under request id {request_id}"
                    outcome = Outcome(error={"code": -32603, "message": message}, message=message)
            if outcome is not None:
                with anyio.CancelScope(shield=True):
                    await self._moved(await self.store.finish(task_id, outcome))
        finally:
            self._local.pop(task_id, None)
            local.done.set()

    async def _moved(self, record: TaskRecord | None) -> None:
        """Wake whoever waits on the task here and tell its listener."""
        if record is None:
            return
        local = self._local.get(record.id)
        if local is None:
            return
        local.changed.set()
        local.changed = anyio.Event()
        if local.listener is not None:
            try:
                await local.listener(record)
            except Exception:  # a requestor that went away must not break the task
                logger.debug("task %s: status listener failed", record.id, exc_info=True)

    async def get(self, task_id: str, owner: Owner) -> TaskRecord | None:
        return await self.store.get(task_id, owner)

    async def page(self, owner: Owner, cursor: str | None) -> tuple[list[TaskRecord], str | None]:
        """Raises: InvalidArgument: a cursor this server did not hand out."""
        return await self.store.page(owner, cursor, self.settings.list_page_size)

    async def cancel(self, task_id: str, owner: Owner) -> TaskRecord | None:
        """Cancel the owner's task and stop its work here (another replica's work stops at its next sweep).

        Raises:
            InvalidArgument: the task is over already.
        """
        local = self._local.get(task_id)
        record = await self.store.cancel(task_id, owner, CANCELLED)
        if record is None:
            return None
        if local is not None:
            local.scope.cancel()
            if local.listener is not None:
                try:
                    await local.listener(record)
                except Exception:
                    logger.debug("task %s: status listener failed", task_id, exc_info=True)
            local.changed.set()
        return record

    async def wait(
        self, task_id: str, owner: Owner, until: Callable[[TaskRecord], bool] = lambda r: r.terminal
    ) -> TaskRecord | None:
        """The owner's task once `until` holds for it (by default: it is over); None once it is gone."""
        while True:
            local = self._local.get(task_id)
            changed = local.changed if local is not None else None
            record = await self.store.get(task_id, owner)
            if record is None or until(record):
                return record
            with anyio.move_on_after(self.settings.poll_interval_s):
                if changed is not None:
                    await changed.wait()
                else:
                    await anyio.sleep_forever()

    async def forget(self, task_id: str) -> None:
        """Delete a finished task whose result went back inline (the requestor never saw it as a task)."""
        await self.store.delete(task_id)

    async def join(self, task_id: str) -> None:
        """Until this process's work for the task has ended (at once when there is none here)."""
        local = self._local.get(task_id)
        if local is not None:
            await local.done.wait()

    async def sweep(self) -> None:
        """Renew this process's leases, stop work that is no longer wanted, fail orphans, purge expired tasks."""
        gone = await self.store.renew(self.id, list(self._local), self.settings.lease_s)
        for task_id in gone:
            local = self._local.get(task_id)
            if local is not None:
                local.scope.cancel()
                local.changed.set()
        if await self.store.fail_orphans():
            logger.warning("tasks whose server process died were marked failed")
        await self.store.purge()

    async def _sweeping(self) -> None:
        with self._sweeper:
            while True:
                await anyio.sleep(self.settings.lease_s / 3)
                try:
                    await self.sweep()
                except Exception:  # the database may be briefly away; the next sweep tries again
                    logger.exception("the task sweep failed")
