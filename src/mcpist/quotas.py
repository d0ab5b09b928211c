"""How much work each user and each token has running at once, against `settings.limits`.

One process's count: quotas protect this process's workers, so nothing is shared between replicas.
A caller over a quota gets RESOURCE_EXHAUSTED naming the setting; other callers are unaffected.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Literal, TypeVar

import anyio

from mcpist.config import LimitsSettings
from mcpist.errors import ResourceExhausted
from mcpist.modules.api import Caller
from mcpist.observe.metrics import quota_refused

__all__ = ["Kind", "Quotas"]

Kind = Literal["call", "batch", "script"]
T = TypeVar("T")

_WHAT = {"call": "tool calls", "batch": "batch runs", "script": "scripts"}
_SETTING = {"call": "calls", "batch": "batches", "script": "scripts"}


class Quotas:
    """Counts of running work per (kind, user) and (kind, token)."""

    def __init__(self, limits: LimitsSettings) -> None:
        self.limits = limits
        self._running: Counter[tuple[Kind, str]] = Counter()
        self._freed: anyio.Event | None = None

    def _refusal(self, kind: Kind, caller: Caller) -> ResourceExhausted | None:
        keys = [(_user(caller), "user")]
        if (token := _token(caller)) is not None:
            keys.insert(0, (token, "token"))
        for key, scope in keys:
            setting = f"{_SETTING[kind]}_per_{scope}"
            limit: int = getattr(self.limits, setting)
            if self._running[(kind, key)] >= limit:
                return ResourceExhausted(
                    f"this {scope} already has {limit} {_WHAT[kind]} running, its limit (limits.{setting}); "
                    "wait for one to finish",
                    {"quota": f"limits.{setting}", "limit": limit},
                )
        return None

    @asynccontextmanager
    async def hold(self, kind: Kind, caller: Caller, *, wait: bool = False) -> AsyncIterator[None]:
        """Count one `kind` for the caller while the block runs.

        `wait` queues instead of refusing (tool calls of a batch or script already admitted).

        Raises:
            ResourceExhausted: the caller's token or user is at its quota and `wait` is false.
        """
        while (refusal := self._refusal(kind, caller)) is not None:
            if not wait:
                quota_refused(refusal.data["quota"])
                raise refusal
            if self._freed is None:
                self._freed = anyio.Event()
            await self._freed.wait()
        keys = [(kind, _user(caller))] + ([(kind, token)] if (token := _token(caller)) is not None else [])
        for key in keys:
            self._running[key] += 1
        try:
            yield
        finally:
            for key in keys:
                self._running[key] -= 1
                if not self._running[key]:
                    del self._running[key]
            if self._freed is not None:
                self._freed.set()
                self._freed = None

    async def run(self, kind: Kind, caller: Caller, work: Callable[[], Awaitable[T]]) -> T:
        """`work()` counted as one `kind` of the caller's (refused when over its quota).

        Raises:
            ResourceExhausted: as `hold`.
        """
        async with self.hold(kind, caller):
            return await work()


def _user(caller: Caller) -> str:
    return f"user:{caller.user_id}"


def _token(caller: Caller) -> str | None:
    return f"token:{caller.token_id}" if caller.token_id is not None else None
