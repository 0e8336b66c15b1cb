"""Async caches: concurrent callers share one computation, failures are not cached, a caller
giving up does not cancel the shared work, invalidation and TTL hour buckets behave."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from memory.core.cache import AsyncCache, SingleFlight
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from tests.memory.hierarchy_support import NOW


async def test_concurrent_misses_share_one_computation(telemetry: Telemetry) -> None:
    cache: AsyncCache[str, int] = AsyncCache.lru("t", 10, telemetry=telemetry)
    runs = 0

    async def compute() -> int:
        nonlocal runs
        runs += 1
        await asyncio.sleep(0.01)
        return 42

    results = await asyncio.gather(*(cache.get_or_compute("k", compute) for _ in range(50)))
    assert runs == 1
    assert [value for value, _ in results] == [42] * 50
    value, hit = await cache.get_or_compute("k", compute)
    assert (value, hit, runs) == (42, True, 1)
    events = telemetry.recent("cache")
    assert sum(e["hit"] for e in events) == 1
    assert sum(1 for e in events if not e["hit"] and e.get("shared")) == 49


async def test_failures_are_not_cached(telemetry: Telemetry) -> None:
    cache: AsyncCache[str, int] = AsyncCache.lru("t", 10, telemetry=telemetry)
    attempts = 0

    async def flaky() -> int:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise RuntimeError("model down")
        return 7

    with pytest.raises(RuntimeError):
        await cache.get_or_compute("k", flaky)
    assert await cache.get_or_compute("k", flaky) == (7, False)
    assert attempts == 2


async def test_a_caller_timing_out_does_not_cancel_the_shared_task(telemetry: Telemetry) -> None:
    cache: AsyncCache[str, str] = AsyncCache.lru("t", 10, telemetry=telemetry)
    finished = asyncio.Event()

    async def slow() -> str:
        await asyncio.sleep(0.1)
        finished.set()
        return "done"

    with pytest.raises(TimeoutError):
        await asyncio.wait_for(cache.get_or_compute("k", slow), 0.01)
    await asyncio.wait_for(finished.wait(), 2)
    await asyncio.sleep(0)
    assert cache.peek("k") == "done"


async def test_invalidate_drops_entries_and_detaches_running_work(telemetry: Telemetry) -> None:
    cache: AsyncCache[tuple[int, int], str] = AsyncCache.lru("t", 10, telemetry=telemetry)
    cache.put((1, 1), "old")
    cache.put((1, 2), "other member")
    release = asyncio.Event()

    async def outdated() -> str:
        await release.wait()
        return "built from old facts"

    running = asyncio.ensure_future(cache.get_or_compute((1, 3), outdated))
    await asyncio.sleep(0)
    assert cache.invalidate(lambda key: key[1] in (1, 3)) == 1
    release.set()
    assert (await running)[0] == "built from old facts"  # its caller still gets an answer
    assert cache.peek((1, 3)) is None  # ... but it is not cached for anyone else
    assert cache.peek((1, 1)) is None and cache.peek((1, 2)) == "other member"


async def test_ttl_cache_follows_the_injected_clock(telemetry: Telemetry) -> None:
    clock = FixedClock(NOW)
    cache: AsyncCache[str, int] = AsyncCache.ttl(
        "today", 10, 3600, timer=lambda: clock.now().timestamp(), telemetry=telemetry
    )
    cache.put("k", 1)
    clock.advance(timedelta(minutes=59))
    assert cache.peek("k") == 1
    clock.advance(timedelta(minutes=2))
    assert cache.peek("k") is None


async def test_single_flight_close_cancels_running_tasks() -> None:
    flight: SingleFlight[str, None] = SingleFlight("t")
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.sleep(3600)

    task, shared = flight.start("k", forever)
    again, shared_again = flight.start("k", forever)
    assert again is task and not shared and shared_again
    await started.wait()
    await asyncio.wait_for(flight.aclose(), 2)
    assert task.cancelled() and len(flight) == 0
