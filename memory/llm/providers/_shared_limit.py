"""Requests-per-minute limits that hold across every process on the database.

Each process used to keep its own limiter, so two shards and a worker together sent three
times a provider's quota. Here every request reserves a slot in `llm_rate_slots` first
(db/rate_limits.py) and waits for it. If the database cannot be reached the process falls back
to its own in-memory limiter: a reply is never held hostage by the limiter's bookkeeping.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import asyncpg

from db.rate_limits import reserve_slot
from memory.llm.providers._guarded import local_limiter

_log = logging.getLogger(__name__)


class SharedRateLimiter:
    """`await acquire()` returns when this request may start (the AsyncLimiter interface)."""

    def __init__(self, pool: asyncpg.Pool, key: str, requests_per_minute: float) -> None:
        self._pool = pool
        self._key = key
        self._spacing = timedelta(seconds=60.0 / requests_per_minute)
        self._local = local_limiter(requests_per_minute)

    async def acquire(self) -> None:
        try:
            wait = await reserve_slot(self._pool, self._key, self._spacing)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            _log.warning("shared rate limit unavailable (%s); limiting locally", exc)
            await self._local.acquire()
            return
        if wait > timedelta(0):
            await asyncio.sleep(wait.total_seconds())


class SharedRateLimits:
    """Makes one shared limiter per (provider, model) key for the provider chain."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    def __call__(self, key: str, requests_per_minute: float) -> SharedRateLimiter:
        return SharedRateLimiter(self._pool, key, requests_per_minute)
