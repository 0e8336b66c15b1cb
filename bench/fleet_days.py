"""Closing one day of the fleet under one model's rate limit, from measured guild-days.

A few sample guilds, one per daily volume (1, 10, 100 ... messages), each with an older day
already closed; their yesterday is then closed through the worker's own path
(`MemoryManager.close_day`) with the offline model behind `CountingProvider` (the product's
tokenizer counts the prompts and answers). Those calls and tokens per guild-day are
extrapolated to a fleet whose guilds talk Zipf-wise (`daily_messages`): calls / the limit is the
wall time of the close, the prices table gives its cost, and a need above the limit leaves a
backlog that grows by the difference every day.

While a day is not closed yet, a member's reply still gets memory: on the busiest sample, before
its yesterday is closed, the reply path asks for a member's context under its 1 s budget with a
model too slow to answer in time (a queue behind the rate limit), and the figures say what it
served (facts, older summaries) and how fast.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from bench.harness import REPLY_BUDGET, make_manager
from bench.providers import CountingProvider
from bench.synthetic import GuildSpec, SyntheticGuild, load_guild
from memory.core.clock import FixedClock
from memory.core.prices import DEFAULT_PRICES

# The model a day close runs on by default (GEMINI_MODEL_DAILY), priced from the table.
PRICED_MODEL = "gemini-2.5-flash"
# Busiest guild's day at most (a bigger one is the same call, chunked by the model's limit).
DAILY_CAP = 20_000
# Half the guilds say something on a given day: guild of rank r says ACTIVE * N / (r + 1).
ACTIVE = 0.5
# A model behind a saturated rate limit: seconds before a call of the reply path is answered.
QUEUED_MODEL_SECONDS = 30.0


def daily_messages(guilds: int) -> list[int]:
    """Messages each guild says in a day, by rank (Zipf; the same shape at every fleet size)."""
    return [min(DAILY_CAP, int(ACTIVE * guilds / (rank + 1))) for rank in range(guilds)]


@dataclass(frozen=True)
class DaySample:
    """One guild-day closed through the worker's path."""

    messages: int
    calls: int
    input_tokens: int
    output_tokens: int
    closed: bool = True  # its summaries are stored (nothing of the day was lost)


@dataclass(frozen=True)
class Meanwhile:
    """What a member's reply got while their guild's yesterday was not closed."""

    served: bool
    fallback: str | None
    sources: tuple[str, ...]
    elapsed_ms: float


async def sample_days(
    pool: asyncpg.Pool, volumes: Sequence[int]
) -> tuple[list[DaySample], Meanwhile]:
    """Close yesterday of one sample guild per daily volume; the reply check on the busiest."""
    samples = []
    meanwhile = Meanwhile(False, None, (), 0.0)
    for number, volume in enumerate(sorted(volumes), start=1):
        members = max(2, min(200, volume // 5))
        guild = SyntheticGuild(
            GuildSpec(guild_id=number, members=members, messages_per_day=volume, days=3)
        )
        await load_guild(pool, guild, days=[2, 1], analyze=False)
        clock = FixedClock(guild.spec.now)
        fast = CountingProvider()
        manager = make_manager(pool, fast, clock)
        try:
            await manager.close_day(number, guild.day(2))  # the older day: not counted
            fast.reset()
            if number == len(volumes):
                meanwhile = await _reply_meanwhile(pool, guild, clock)
            await manager.close_day(number, guild.day(1))
        finally:
            await manager.aclose()
        usage = fast.usage
        samples.append(
            DaySample(
                messages=len(guild.messages(1)),
                calls=usage.total_calls,
                input_tokens=sum(usage.input_tokens.values()),
                output_tokens=sum(usage.output_tokens.values()),
                closed=bool(
                    await pool.fetchval(
                        "SELECT count(*) FROM summary_days WHERE guild_id = $1 AND day = $2",
                        number,
                        guild.day(1),
                    )
                ),
            )
        )
    return samples, meanwhile


async def _reply_meanwhile(
    pool: asyncpg.Pool, guild: SyntheticGuild, clock: FixedClock
) -> Meanwhile:
    """The busiest member's context under the reply budget, the model queued for 30 s."""
    slow = CountingProvider(latency=QUEUED_MODEL_SECONDS)
    manager = make_manager(pool, slow, clock)
    try:
        began = time.perf_counter()
        report = await manager.build_context(
            guild.spec.guild_id, guild.user_ids[0], budget=REPLY_BUDGET
        )
        elapsed = (time.perf_counter() - began) * 1000
    finally:
        await manager.aclose()
    sources = tuple(s.name for s in report.sources if s.chars)
    return Meanwhile(bool(report.text), report.fallback, sources, elapsed)


@dataclass(frozen=True)
class FleetDay:
    """One day of a fleet, extrapolated from the samples."""

    guilds: int
    active: int
    messages: int
    calls: int
    tokens: float
    cost_usd: float
    wall_hours: float
    backlog_calls: int  # left over at the end of each day (it grows by this every day)
    needed_rpm: float


def fleet_day(guilds: int, samples: Sequence[DaySample], limit_rpm: float = 60.0) -> FleetDay:
    """Calls: the sample with the nearest volume at or below a guild's; tokens: linear between
    the samples (beyond the largest, at its tokens per message)."""
    ordered = sorted(samples, key=lambda s: s.messages)
    volumes = [s.messages for s in ordered]
    price_in, price_out = DEFAULT_PRICES[PRICED_MODEL]
    calls = active = said = 0
    tokens_in = tokens_out = 0.0
    for count in daily_messages(guilds):
        if count <= 0:
            continue
        active += 1
        said += count
        below = max(0, bisect.bisect_right(volumes, count) - 1)
        calls += ordered[below].calls
        tin, tout = _tokens_at(ordered, below, count)
        tokens_in += tin
        tokens_out += tout
    per_day = limit_rpm * 60 * 24
    return FleetDay(
        guilds=guilds,
        active=active,
        messages=said,
        calls=calls,
        tokens=tokens_in + tokens_out,
        cost_usd=(tokens_in * price_in + tokens_out * price_out) / 1_000_000,
        wall_hours=calls / limit_rpm / 60,
        backlog_calls=max(0, int(calls - per_day)),
        needed_rpm=calls / (24 * 60),
    )


def _tokens_at(ordered: Sequence[DaySample], below: int, count: int) -> tuple[float, float]:
    low = ordered[below]
    high = ordered[min(below + 1, len(ordered) - 1)]
    if high.messages == low.messages:  # past the largest sample: its tokens per message
        scale = count / max(1, low.messages)
        return low.input_tokens * scale, low.output_tokens * scale
    share = (count - low.messages) / (high.messages - low.messages)
    return (
        low.input_tokens + share * (high.input_tokens - low.input_tokens),
        low.output_tokens + share * (high.output_tokens - low.output_tokens),
    )
