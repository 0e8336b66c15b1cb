"""Async caches with single flight: cachetools for storage, one shared asyncio.Task per key.

Concurrent callers for one key await the same task (so 100 replies mentioning one member cost
one build); a caller that gives up (time budget) does not cancel the task, which finishes in
the background and fills the cache. Failures are never cached. `aclose()` cancels what is left,
so nothing leaks on shutdown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable, MutableMapping
from typing import Any, Generic, TypeVar

from cachetools import LRUCache, TTLCache

from memory.core.telemetry import Telemetry

_log = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_MISSING: Any = object()


class SingleFlight(Generic[K, V]):
    """At most one running task per key; every caller for that key shares its result."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._inflight: dict[K, asyncio.Task[V]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def running(self, key: K) -> asyncio.Task[V] | None:
        return self._inflight.get(key)

    def start(self, key: K, factory: Callable[[], Awaitable[V]]) -> tuple[asyncio.Task[V], bool]:
        """The key's running task, starting one if none runs; the bool says it was shared."""
        task = self._inflight.get(key)
        if task is not None:
            return task, True
        task = asyncio.ensure_future(factory())
        self._inflight[key] = task
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._finished(key, done))
        return task, False

    async def run(self, key: K, factory: Callable[[], Awaitable[V]]) -> tuple[V, bool]:
        """Await the key's task; cancelling this caller leaves the shared task running."""
        task, shared = self.start(key, factory)
        return await asyncio.shield(task), shared

    def owns(self, key: K, task: asyncio.Task[Any] | None) -> bool:
        """True while `task` is still the key's current computation (not detached)."""
        return task is not None and self._inflight.get(key) is task

    def detach(self, predicate: Callable[[K], bool]) -> int:
        """Let running tasks for matching keys finish unseen; the next caller starts afresh."""
        keys = [key for key in self._inflight if predicate(key)]
        for key in keys:
            del self._inflight[key]
        return len(keys)

    def _finished(self, key: K, task: asyncio.Task[Any]) -> None:
        if self._inflight.get(key) is task:
            del self._inflight[key]
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()  # retrieved here so a background failure is never "lost"
        if error is not None:
            _log.info("%s computation for %r failed: %s", self.name, key, error)

    def __len__(self) -> int:
        return len(self._tasks)

    async def aclose(self) -> None:
        """Cancel every running task and wait for them to unwind."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._inflight.clear()


class AsyncCache(Generic[K, V]):
    """A cachetools mapping behind single flight; emits one `cache` telemetry event per lookup."""

    def __init__(
        self,
        name: str,
        storage: MutableMapping[K, V],
        *,
        telemetry: Telemetry,
    ) -> None:
        self.name = name
        self._storage = storage
        self._flight: SingleFlight[K, V] = SingleFlight(name)
        self._telemetry = telemetry

    @classmethod
    def lru(cls, name: str, maxsize: int, *, telemetry: Telemetry) -> AsyncCache[K, V]:
        return cls(name, LRUCache(maxsize=maxsize), telemetry=telemetry)

    @classmethod
    def ttl(
        cls,
        name: str,
        maxsize: int,
        ttl: float,
        *,
        timer: Callable[[], float] | None = None,
        telemetry: Telemetry,
    ) -> AsyncCache[K, V]:
        storage: TTLCache[K, V] = (
            TTLCache(maxsize=maxsize, ttl=ttl, timer=timer)
            if timer
            else TTLCache(maxsize=maxsize, ttl=ttl)
        )
        return cls(name, storage, telemetry=telemetry)

    def peek(self, key: K) -> V | None:
        """The cached value without computing or counting a lookup."""
        value = self._storage.get(key, _MISSING)
        return None if value is _MISSING else value

    def put(self, key: K, value: V) -> None:
        self._storage[key] = value

    async def get_or_compute(
        self, key: K, factory: Callable[[], Awaitable[V]], **fields: Any
    ) -> tuple[V, bool]:
        """(value, hit). On a miss the computation is shared by every concurrent caller and its
        result is stored only if it succeeded and was not invalidated meanwhile."""
        value = self._storage.get(key, _MISSING)
        if value is not _MISSING:
            self._telemetry.emit("cache", cache=self.name, hit=True, **fields)
            return value, True

        async def compute() -> V:
            result = await factory()
            if self._flight.owns(key, asyncio.current_task()):
                self._storage[key] = result
            return result

        task, shared = self._flight.start(key, compute)
        self._telemetry.emit("cache", cache=self.name, hit=False, shared=shared, **fields)
        return await asyncio.shield(task), False

    def invalidate(self, predicate: Callable[[K], bool]) -> int:
        """Drop matching entries and detach their running computations; returns entries dropped."""
        keys = [key for key in list(self._storage.keys()) if predicate(key)]
        for key in keys:
            self._storage.pop(key, None)
        self._flight.detach(predicate)
        return len(keys)

    def __len__(self) -> int:
        return len(self._storage)

    async def aclose(self) -> None:
        await self._flight.aclose()
