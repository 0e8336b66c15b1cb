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
from typing import Any, NamedTuple

import asyncpg

from db.usage import UsageRow, add_usage, usage_since
from memory.core.prices import Prices
from memory.usage._report import render_usage

_log = logging.getLogger(__name__)

# day, guild, purpose, provider, model, outcome, error class, estimated
Key = tuple[date, int, str, str, str, str, str, bool]
FLUSH_SECONDS = 5.0
# What the failed attempts of an `llm_call` event came to, by its outcome: an answered call's
# failed tries were retried (and recovered), the others' ended as the event did.
_FAILED_AS = {"ok": "retried", "fallback": "fallback", "error": "error", "cancelled": "cancelled"}
_UNANSWERED = frozenset(_FAILED_AS.values())


class Counted(NamedTuple):
    """Attempts of one kind that one `llm_call` event reports."""

    outcome: str
    error_class: str
    estimated: bool
    calls: int
    input_tokens: int = 0
    output_tokens: int = 0


def attempt_counts(event: dict[str, Any]) -> list[Counted]:
    """What one `llm_call` event adds to usage. Every attempt counts: the answered one with
    the tokens the server reported (or ours, marked estimated), each failed one by its error
    class (the chain's events carry no tokens for them); a skipped provider sent nothing; a
    degraded answer counts once, by its reason (its tokens came with its ok event)."""
    outcome = str(event.get("outcome") or "")
    if outcome == "degraded":
        return [Counted("degraded", str(event.get("reason") or ""), False, 1)]
    if outcome not in _FAILED_AS:
        return []  # skipped: its breaker was open, no request went out
    failed = _failed_attempts(event, outcome)
    counts = [
        Counted(_FAILED_AS[outcome], error_class, False, failed.count(error_class))
        for error_class in sorted(set(failed))
    ]
    if outcome == "ok":
        tokens_in, tokens_out = event.get("input_tokens"), event.get("output_tokens")
        estimated = bool(event.get("tokens_estimated"))
        counts.append(Counted("ok", "", estimated, 1, int(tokens_in or 0), int(tokens_out or 0)))
    return counts


def _failed_attempts(event: dict[str, Any], outcome: str) -> list[str]:
    """The error class of each attempt that got no answer (`attempt_errors`; events without it
    are read from `retries` and `error`)."""
    listed = event.get("attempt_errors")
    if isinstance(listed, list):
        return [str(name) for name in listed]
    retries = int(event.get("retries") or 0)
    if outcome == "ok":
        return [""] * retries
    error = str(event.get("error") or "")
    if error == "breaker open":
        return []
    return [error.split(":", 1)[0] if ":" in error else ""] * (1 + retries)


def _row(key: Key, sums: list[int]) -> UsageRow:
    day, guild_id, purpose, provider, model, outcome, error_class, estimated = key
    calls, input_tokens, output_tokens = sums
    return UsageRow(
        day,
        guild_id,
        purpose,
        provider,
        model,
        calls,
        input_tokens,
        output_tokens,
        outcome=outcome,
        error_class=error_class,
        estimated=estimated,
    )


class UsageRecorder:
    """Counts every attempt of `llm_call` events (answered, failed, degraded); `flush()`
    writes them."""

    def __init__(self, pool: asyncpg.Pool, prices: Prices) -> None:
        self._pool = pool
        self.prices = prices
        self._pending: dict[Key, list[int]] = {}
        # Today's counts of this process (kept after flushing), for `/memory stats`.
        self._today: dict[Key, list[int]] = {}
        self._task: asyncio.Task[None] | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("op") != "llm_call":
            return
        day = datetime.now(UTC).date()
        where = (
            day,
            int(event.get("guild_id") or 0),
            str(event.get("purpose") or ""),
            str(event.get("provider") or ""),
            str(event.get("model") or ""),
        )
        for counted in attempt_counts(event):
            key = (*where, counted.outcome, counted.error_class, counted.estimated)
            for table in (self._pending, self._today):
                sums = table.setdefault(key, [0, 0, 0])
                sums[0] += counted.calls
                sums[1] += counted.input_tokens
                sums[2] += counted.output_tokens
        for old in [k for k in self._today if k[0] != day]:
            del self._today[old]

    def unflushed_tokens(self, day: date, *, skip_providers: tuple[str, ...] = ()) -> int:
        """Tokens servers reported, not yet written (our own estimates left out)."""
        return sum(
            sums[1] + sums[2]
            for key, sums in self._pending.items()
            if key[0] == day and key[3] not in skip_providers and not key[7]
        )

    def today_line(self) -> str:
        """One line for `/memory stats`: answered calls, the tokens servers reported (not our
        estimates), the estimated cost so far today, and the attempts that got no answer."""
        calls = failed = tokens_in = tokens_out = 0
        cost = 0.0
        unpriced: set[str] = set()
        for (_, _, _, provider, model, outcome, _, estimated), (n, i, o) in self._today.items():
            if outcome in _UNANSWERED:
                failed += n
            if outcome != "ok":
                continue
            calls += n
            if estimated:
                continue
            tokens_in, tokens_out = tokens_in + i, tokens_out + o
            price = self.prices.cost(provider, model, i, o)
            if price is None:
                unpriced.add(model)
            else:
                cost += price
        note = f" (no price for {', '.join(sorted(unpriced))})" if unpriced else ""
        unanswered = f"; {failed} attempts got no answer" if failed else ""
        return (
            f"Estimated LLM cost today (this process): ${cost:.4f} for {calls} calls,"
            f" {tokens_in}/{tokens_out} tokens in/out{note}{unanswered}; all days:"
            " `memorybot usage`"
        )

    async def report(self, first_day: date, *, guild_id: int | None, scope: str) -> str:
        """`memorybot usage`: LLM calls, tokens and estimated cost per UTC day since
        `first_day` (this process's own calls count too), for one guild or all."""
        await self.flush()
        rows = await usage_since(self._pool, first_day, guild_id=guild_id)
        return render_usage(rows, self.prices, first_day=first_day, scope=scope)

    async def flush(self) -> None:
        pending, self._pending = self._pending, {}
        rows = [_row(key, sums) for key, sums in pending.items()]
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
