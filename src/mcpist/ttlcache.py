"""A small time-bounded cache for per-request lookups (verified tokens, resolved permissions)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass
class _Loading(Generic[V]):
    done: anyio.Event = field(default_factory=anyio.Event)
    value: V | None = None
    failed: bool = False


class TtlCache(Generic[K, V]):
    """Entries live `ttl_s` seconds; the oldest go first beyond `max_entries`; `ttl_s=0` caches nothing."""

    def __init__(self, ttl_s: float, max_entries: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_s
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._loading: dict[K, _Loading[V]] = {}

    def get(self, key: K) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, value = entry
        if self._clock() >= expires:
            del self._entries[key]
            return None
        return value

    def put(self, key: K, value: V) -> None:
        if self._ttl <= 0:
            return
        self._entries[key] = (self._clock() + self._ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    async def get_or_load(self, key: K, load: Callable[[], Awaitable[V | None]]) -> V | None:
        """The cached value, else `load()`'s (kept unless None). Concurrent misses of one key share one
        load: when an entry expires under load, one request reads the database, not every one in flight.
        A load that fails fails its own caller; those waiting on it then load for themselves."""
        value = self.get(key)
        if value is not None:
            return value
        pending = self._loading.get(key)
        if pending is not None:
            await pending.done.wait()
            if not pending.failed:
                return pending.value
            return await self.get_or_load(key, load)
        pending = self._loading[key] = _Loading()
        try:
            pending.value = await load()
        except BaseException:
            pending.failed = True
            raise
        finally:
            del self._loading[key]
            pending.done.set()
        if pending.value is not None:
            self.put(key, pending.value)
        return pending.value

    def clear(self) -> None:
        self._entries.clear()
