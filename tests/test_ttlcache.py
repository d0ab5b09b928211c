"""The short-lived cache of verified tokens and permissions."""

from __future__ import annotations

from mcpist.ttlcache import TtlCache


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_entries_expire_after_ttl() -> None:
    clock = Clock()
    cache: TtlCache[str, int] = TtlCache(2.0, clock=clock)
    cache.put("a", 1)
    assert cache.get("a") == 1
    clock.now += 1.99
    assert cache.get("a") == 1
    clock.now += 0.01
    assert cache.get("a") is None


def test_oldest_entries_go_first() -> None:
    cache: TtlCache[int, int] = TtlCache(60.0, max_entries=3, clock=Clock())
    for i in range(5):
        cache.put(i, i)
    assert [cache.get(i) for i in range(5)] == [None, None, 2, 3, 4]


def test_zero_ttl_caches_nothing() -> None:
    cache: TtlCache[str, int] = TtlCache(0.0, clock=Clock())
    cache.put("a", 1)
    assert cache.get("a") is None


def test_clear() -> None:
    cache: TtlCache[str, int] = TtlCache(5.0, clock=Clock())
    cache.put("a", 1)
    cache.clear()
    assert cache.get("a") is None
