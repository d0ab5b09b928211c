"""Projects' service keys, kept in memory for a short while: the module's state."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio

CacheKey = tuple[str, ...]
"""(user, account, role sharing it, project): a key fetched with one account is never served to another."""


class KeyCache:
    """Service keys by `CacheKey`, each reused for `ttl_s` seconds; one fetch at a time per key.

    Only in this process's memory: never stored, logged or shown (its repr names no key).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._keys: dict[CacheKey, tuple[str, float]] = {}
        self._locks: dict[CacheKey, anyio.Lock] = {}

    def __repr__(self) -> str:
        return f"KeyCache(<{len(self._keys)} keys>)"

    def __len__(self) -> int:
        return len(self._keys)

    async def get(self, key: CacheKey, ttl_s: float, fetch: Callable[[], Awaitable[str]]) -> str:
        """The cached key if younger than `ttl_s`, else what `fetch()` returns (cached when `ttl_s` > 0).

        Raises:
            whatever `fetch` raises; nothing is cached then.
        """
        lock = self._locks.setdefault(key, anyio.Lock())
        async with lock:
            now = self._clock()
            found = self._keys.get(key)
            if found is not None and now - found[1] < ttl_s:
                return found[0]
            value = await fetch()
            self._prune(now, ttl_s)
            if ttl_s > 0:
                self._keys[key] = (value, now)
            else:
                self._keys.pop(key, None)
            return value

    def drop(self, key: CacheKey, value: str) -> None:
        """Forget `key` if it still holds `value` (the upstream refused it); a newer key stays."""
        found = self._keys.get(key)
        if found is not None and found[0] == value:
            del self._keys[key]

    def discard(self, key: CacheKey) -> None:
        self._keys.pop(key, None)

    def clear(self) -> None:
        self._keys.clear()

    def _prune(self, now: float, ttl_s: float) -> None:
        for stale in [k for k, (_, at) in self._keys.items() if now - at >= ttl_s]:
            del self._keys[stale]
