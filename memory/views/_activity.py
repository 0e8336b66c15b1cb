"""Guilds, messages per local day and LLM usage per day and model, for the overview's charts.

Message counts come from the quarter-hour counts the database keeps (V025), so a chart of a
guild of a million messages costs a few milliseconds, the first render after a start included,
and is never stale (docs/performance.md has the figures).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import asyncpg

from db.activity import GuildRow, first_message_at, guild_row, guild_rows, messages_per_day
from db.usage import UNANSWERED, usage_since
from memory.core.prices import Prices


@dataclass(frozen=True, slots=True)
class GuildSummary:
    guild_id: int
    name: str
    timezone: str
    members: int


@dataclass(frozen=True, slots=True)
class DayCount:
    day: date
    count: int


@dataclass(slots=True)
class UsageDay:
    """One UTC day of LLM attempts: answered calls, failed attempts, tokens, cost by model."""

    day: date
    calls: int = 0
    failed: int = 0
    replies: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_tokens: int = 0  # the offline provider's, counted by us: not in the tokens
    cost: float = 0.0
    unpriced: bool = False
    tokens_by_model: dict[str, int] = field(default_factory=dict)
    cost_by_model: dict[str, float] = field(default_factory=dict)


class ActivityViews:
    """Counts for charts; never message text."""

    def __init__(self, pool: asyncpg.Pool, prices: Prices) -> None:
        self._pool = pool
        self._prices = prices

    async def guilds(self) -> list[GuildSummary]:
        return [_summary(row) for row in await guild_rows(self._pool)]

    async def guild(self, guild_id: int) -> GuildSummary | None:
        """A guild the overview lists (an unnamed one, as the console's, included), or None."""
        row = await guild_row(self._pool, guild_id)
        return _summary(row) if row is not None else None

    async def first_day(self, guild_id: int, timezone: str) -> date | None:
        """The local day of the guild's oldest stored message: where "since the first
        message" starts (an imported history is months old)."""
        first = await first_message_at(self._pool, guild_id)
        return first.astimezone(ZoneInfo(timezone)).date() if first is not None else None

    async def messages(
        self, guild_id: int, timezone: str, *, days: int, now: datetime
    ) -> list[DayCount]:
        """Messages per local day, the last `days` days up to today, zeros included."""
        zone = ZoneInfo(timezone)
        today = now.astimezone(zone).date()
        first = today - timedelta(days=days - 1)
        start = datetime.combine(first, datetime.min.time(), zone).astimezone(UTC)
        end = datetime.combine(today + timedelta(days=1), datetime.min.time(), zone)
        counts = await messages_per_day(self._pool, guild_id, start, end.astimezone(UTC), timezone)
        return [
            DayCount(first + timedelta(days=n), counts.get(first + timedelta(days=n), 0))
            for n in range(days)
        ]

    async def usage(
        self, *, days: int, now: datetime, guild_id: int | None = None
    ) -> list[UsageDay]:
        """LLM attempts per UTC day (all guilds, or one), zeros included, priced per model."""
        today = now.astimezone(UTC).date()
        first = today - timedelta(days=days - 1)
        by_day = {
            first + timedelta(days=n): UsageDay(first + timedelta(days=n)) for n in range(days)
        }
        for row in await usage_since(self._pool, first, guild_id=guild_id):
            line = by_day.get(row.day)
            if line is None:
                continue
            # Counted as `memorybot usage` counts: answered calls, attempts without an answer,
            # and tokens a server reported; the offline provider's are our estimate, apart.
            line.failed += row.calls if row.outcome in UNANSWERED else 0
            if row.outcome != "ok":
                continue
            line.calls += row.calls
            line.replies += row.calls if row.purpose == "reply" else 0
            if row.estimated:
                line.estimated_tokens += row.input_tokens + row.output_tokens
                continue
            line.input_tokens += row.input_tokens
            line.output_tokens += row.output_tokens
            model = f"{row.provider}:{row.model}" if row.model else row.provider
            tokens = row.input_tokens + row.output_tokens
            line.tokens_by_model[model] = line.tokens_by_model.get(model, 0) + tokens
            cost = self._prices.cost(row.provider, row.model, row.input_tokens, row.output_tokens)
            if cost is None:
                line.unpriced = True
                continue
            line.cost += cost
            line.cost_by_model[model] = line.cost_by_model.get(model, 0.0) + cost
        return list(by_day.values())


def _summary(row: GuildRow) -> GuildSummary:
    return GuildSummary(
        row.guild_id, row.name or f"guild {row.guild_id}", row.timezone, row.members
    )
