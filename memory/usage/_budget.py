"""LLM_DAILY_TOKEN_BUDGET: once the day's tokens (every process, from `llm_usage`) pass it,
background work (today's notes, closing days, historical summaries, embeddings) waits for the
next UTC day, while replies and member commands go on. Said once a day in the log.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, date, datetime

import asyncpg

from db.usage import tokens_on
from memory.usage._recorder import UsageRecorder

_log = logging.getLogger(__name__)

# Purposes that are background work; the rest serve a member who is waiting.
BACKGROUND_PURPOSES = frozenset({"daily_summary", "daily_reduce", "historical_summary"})
# How long a total read from the database is trusted before it is read again.
REFRESH_SECONDS = 30.0


class DailyTokenBudget:
    """`await budget.allows(purpose)`: False for background work once today's tokens are spent."""

    def __init__(self, pool: asyncpg.Pool, recorder: UsageRecorder, limit: int | None) -> None:
        self._pool = pool
        self._recorder = recorder
        self.limit = limit
        self._read: tuple[date, float, int] | None = None  # day, when, tokens
        self._told: date | None = None

    async def spent(self, day: date) -> int:
        now = time.monotonic()
        if self._read is None or self._read[0] != day or now - self._read[1] > REFRESH_SECONDS:
            stored = await tokens_on(self._pool, day, skip_providers=("offline",))
            self._read = (day, now, stored)
        return self._read[2] + self._recorder.unflushed_tokens(day, skip_providers=("offline",))

    async def exhausted(self) -> bool:
        """True when a limit is set and today's tokens reached it (told once a day)."""
        if self.limit is None:
            return False
        day = datetime.now(UTC).date()
        try:
            spent = await self.spent(day)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            _log.warning("daily token budget unknown (%s); background work goes on", exc)
            return False
        if spent < self.limit:
            return False
        if self._told != day:
            self._told = day
            _log.warning(
                "LLM_DAILY_TOKEN_BUDGET reached: %d of %d tokens today (UTC); background work"
                " (notes, closing days, embeddings) waits for tomorrow, replies and commands"
                " go on",
                spent,
                self.limit,
            )
        return True

    async def allows(self, purpose: str) -> bool:
        return purpose not in BACKGROUND_PURPOSES or not await self.exhausted()
