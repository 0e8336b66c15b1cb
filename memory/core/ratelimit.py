"""Sliding one-minute rate limits, so one member (or one channel) cannot flood the LLM.

Used for memory commands (per member) and replies (per member and per channel). The first
refused request gets a polite warning; further ones in the same burst are ignored silently,
because answering spam is spam.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Hashable
from datetime import timedelta
from enum import Enum

from cachetools import TTLCache

from memory.core.clock import Clock

_log = logging.getLogger(__name__)

WINDOW = timedelta(minutes=1)


class Admission(Enum):
    ALLOWED = "allowed"
    WARN = "warn"  # refused; tell the member once
    SILENT = "silent"  # refused again in the same burst; say nothing


class RateLimiter:
    """At most `per_minute` requests per key (e.g. (guild, member)) per sliding minute."""

    def __init__(self, per_minute: int, *, clock: Clock, max_keys: int = 10_000):
        self._per_minute = per_minute
        self._clock = clock
        window = WINDOW.total_seconds()
        # Entries of members quiet for a whole window expire on their own.
        self._recent: TTLCache[Hashable, deque[float]] = TTLCache(
            maxsize=max_keys, ttl=window, timer=self._now
        )
        self._warned: TTLCache[Hashable, bool] = TTLCache(
            maxsize=max_keys, ttl=window, timer=self._now
        )

    def _now(self) -> float:
        """Elapsed time, not the clock's reading: a clock fixed by `--now` would otherwise
        never let a minute pass, and the limit would never lift."""
        monotonic = getattr(self._clock, "monotonic", None)
        return monotonic() if monotonic is not None else time.monotonic()

    def saturated(self, *key: Hashable) -> bool:
        """True when the next request of `key` would be refused (nothing is counted)."""
        return self.retry_after(*key) > 0

    def admit(self, *key: Hashable) -> Admission:
        """Count one request for `key`, or refuse it."""
        now = self._now()
        stamps = self._recent.get(key) or deque()
        while stamps and stamps[0] <= now - WINDOW.total_seconds():
            stamps.popleft()
        if len(stamps) >= self._per_minute:
            self._recent[key] = stamps
            if self._warned.get(key):
                return Admission.SILENT
            self._warned[key] = True
            return Admission.WARN
        stamps.append(now)
        self._recent[key] = stamps  # re-inserting refreshes the entry's expiry
        self._warned.pop(key, None)
        return Admission.ALLOWED

    def retry_after(self, *key: Hashable) -> float:
        """Seconds until `key` may send another request."""
        stamps = self._recent.get(key)
        if not stamps or len(stamps) < self._per_minute:
            return 0.0
        return max(0.0, stamps[0] + WINDOW.total_seconds() - self._now())
