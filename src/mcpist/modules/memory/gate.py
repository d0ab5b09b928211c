"""CPU-heavy work (embedding, tokenising) off the event loop, a few at a time, with a deadline per call.

The work runs in a task of the module's own task group, so a caller that reaches its deadline gets
DEADLINE_EXCEEDED at once; work already started keeps its slot until it ends (a thread cannot be
interrupted), so abandoned work never piles up beyond `workers`, and one caller's long text cannot
hold the others for longer than its own, bounded, work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup

from mcpist.modules import DeadlineExceeded, Unavailable

__all__ = ["Gate"]

T = TypeVar("T")


@dataclass
class _Job:
    done: anyio.Event = field(default_factory=anyio.Event)
    abandoned: bool = False
    outcome: tuple[bool, Any] | None = None


class Gate:
    def __init__(self, task_group: TaskGroup, workers: int, deadline_s: float) -> None:
        self._tg = task_group
        self._slots = anyio.CapacityLimiter(workers)
        self.deadline_s = deadline_s

    async def run(self, what: str, work: Callable[[], Awaitable[T]]) -> T:
        """`await work()` within the deadline, counting as one of the gate's workers.

        Raises:
            DeadlineExceeded: it did not finish (waiting for a slot included) within the deadline.
            Unavailable: the module is shutting down.
        """
        job = _Job()

        async def execute() -> None:
            try:
                async with self._slots:
                    if job.abandoned:
                        return
                    try:
                        job.outcome = (True, await work())
                    except Exception as exc:  # handed to the caller, in its own task
                        job.outcome = (False, exc)
            finally:
                job.done.set()

        self._tg.start_soon(execute)
        try:
            with anyio.move_on_after(self.deadline_s):
                await job.done.wait()
        finally:
            if not job.done.is_set():
                job.abandoned = True
        if not job.done.is_set():
            raise DeadlineExceeded(
                f"{what} did not finish within {self.deadline_s:g} s (the server is busy); try again",
                {"timeout_s": self.deadline_s},
            )
        if job.outcome is None:
            raise Unavailable(f"{what} was interrupted: the memory module is stopping")
        ok, value = job.outcome
        if ok:
            result: T = value
            return result
        raise value
