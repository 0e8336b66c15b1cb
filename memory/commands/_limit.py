"""Per-member rate limit for memory commands, so one member cannot flood the LLM or the bot.

A sliding one-minute window per (guild, member). The first refused command gets a polite
warning; further ones in the same burst are ignored silently, because answering spam is spam.
"""

from __future__ import annotations

import logging
from collections import deque
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


class CommandRateLimiter:
    """At most `per_minute` commands per member per sliding minute."""

    def __init__(self, per_minute: int, *, clock: Clock, max_members: int = 10_000):
        self._per_minute = per_minute
        self._clock = clock
        window = WINDOW.total_seconds()
        # Entries of members quiet for a whole window expire on their own.
        self._recent: TTLCache[tuple[int, int], deque[float]] = TTLCache(
            maxsize=max_members, ttl=window, timer=self._now
        )
        self._warned: TTLCache[tuple[int, int], bool] = TTLCache(
            maxsize=max_members, ttl=window, timer=self._now
        )

    def _now(self) -> float:
        return self._clock.now().timestamp()

    def admit(self, guild_id: int, user_id: int) -> Admission:
        """Count one command for the member, or refuse it."""
        key = (guild_id, user_id)
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

    def retry_after(self, guild_id: int, user_id: int) -> float:
        """Seconds until the member may send another command."""
        stamps = self._recent.get((guild_id, user_id))
        if not stamps or len(stamps) < self._per_minute:
            return 0.0
        return max(0.0, stamps[0] + WINDOW.total_seconds() - self._now())
