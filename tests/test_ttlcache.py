"""The short-lived cache of verified tokens and permissions."""

from __future__ import annotations

import anyio
import pytest

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


@pytest.mark.anyio
async def test_concurrent_misses_share_one_load_and_a_failure_is_not_shared() -> None:
    clock = Clock()
    cache: TtlCache[str, int] = TtlCache(2.0, clock=clock)
    loads = 0
    release = anyio.Event()

    async def load() -> int:
        nonlocal loads
        loads += 1
        await release.wait()
        return 7

    results: list[int | None] = []

    async def get() -> None:
        results.append(await cache.get_or_load("k", load))

    async with anyio.create_task_group() as tg:
        for _ in range(20):
            tg.start_soon(get)
        await anyio.wait_all_tasks_blocked()
        release.set()
    assert results == [7] * 20
    assert loads == 1
    clock.now += 2.0  # expired: the next miss loads again

    attempts = 0

    async def flaky() -> int:
        nonlocal attempts
        attempts += 1
        await anyio.sleep(0.01)
        if attempts == 1:
            raise OSError("database away")
        return 8

    outcomes: list[object] = []

    async def get_flaky() -> None:
        try:
            outcomes.append(await cache.get_or_load("k", flaky))
        except OSError as exc:
            outcomes.append(exc)

    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(get_flaky)
    assert sum(isinstance(o, OSError) for o in outcomes) == 1
    assert outcomes.count(8) == 2
    assert attempts == 2
