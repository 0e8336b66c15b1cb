"""LLM calls counted as they complete (a telemetry sink), written to `llm_usage` in batches.

The sink runs inside `Telemetry.emit` (sync, on the event loop), so it only adds to a
counter; a flush every few seconds (and at close) adds the counts to the database in one
statement. A flush that fails keeps its counts for the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, date, datetime
from typing import Any

import asyncpg

from db.usage import UsageRow, add_usage
from memory.core.prices import Prices

_log = logging.getLogger(__name__)

Key = tuple[date, int, str, str, str]  # day, guild, purpose, provider, model
FLUSH_SECONDS = 5.0


class UsageRecorder:
    """Counts `llm_call` events that got an answer; `flush()` writes them."""

    def __init__(self, pool: asyncpg.Pool, prices: Prices) -> None:
        self._pool = pool
        self.prices = prices
        self._pending: dict[Key, list[int]] = {}
        # Today's counts of this process (kept after flushing), for `/memory stats`.
        self._today: dict[Key, list[int]] = {}
        self._task: asyncio.Task[None] | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("op") != "llm_call" or event.get("outcome") != "ok":
            return
        day = datetime.now(UTC).date()
        key = (
            day,
            int(event.get("guild_id") or 0),
            str(event.get("purpose") or ""),
            str(event.get("provider") or ""),
            str(event.get("model") or ""),
        )
        counts = (1, int(event.get("input_tokens") or 0), int(event.get("output_tokens") or 0))
        for table in (self._pending, self._today):
            sums = table.setdefault(key, [0, 0, 0])
            for index, value in enumerate(counts):
                sums[index] += value
        for old in [k for k in self._today if k[0] != day]:
            del self._today[old]

    def unflushed_tokens(self, day: date, *, skip_providers: tuple[str, ...] = ()) -> int:
        return sum(
            sums[1] + sums[2]
            for key, sums in self._pending.items()
            if key[0] == day and key[3] not in skip_providers
        )

    def today_line(self) -> str:
        """One line for `/memory stats`: calls, tokens and the estimated cost so far today."""
        calls = tokens_in = tokens_out = 0
        cost = 0.0
        unpriced: set[str] = set()
        for (_, _, _, provider, model), (n, i, o) in self._today.items():
            calls, tokens_in, tokens_out = calls + n, tokens_in + i, tokens_out + o
            price = self.prices.cost(provider, model, i, o)
            if price is None:
                unpriced.add(model)
            else:
                cost += price
        note = f" (no price for {', '.join(sorted(unpriced))})" if unpriced else ""
        return (
            f"Estimated LLM cost today (this process): ${cost:.4f} for {calls} calls,"
            f" {tokens_in}/{tokens_out} tokens in/out{note}; all days: `memorybot usage`"
        )

    async def flush(self) -> None:
        pending, self._pending = self._pending, {}
        rows = [UsageRow(*key, *sums) for key, sums in pending.items()]
        try:
            await add_usage(self._pool, rows)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            _log.warning("LLM usage not written yet (%s); kept for the next flush", exc)
            for key, sums in pending.items():
                kept = self._pending.setdefault(key, [0, 0, 0])
                for index, value in enumerate(sums):
                    kept[index] += value

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="memorybot-usage")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            await self.flush()
