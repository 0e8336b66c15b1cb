"""LLM economy: what the hierarchy costs per guild-day, against summarising each member on
every request, and what a restart costs.

    python -m bench.economy [--members 50] [--messages-per-day 500] [--days 7]
                            [--request-rate 0.05] [--latency 0]

A synthetic guild is replayed in time order: a week of history first (summarised once, not
counted), then `--days` measured days. Every message addressed to the bot (`--request-rate` of
them) asks for the memories of its author and of the members it mentions, as a reply does,
with the clock at the message's time. The naive design makes one call per requested member
per request whose prompt holds that member's last 7 days of messages (authored or mentioning
them) plus their facts; its answer is as long as the hierarchy's context. A new MemoryManager
over the same database then serves every member again: the restart cost.
The yardsticks are counted by bench/economy_costs.py, the figures said by
bench/economy_report.py.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bench.database import BenchServer, bench_server
from bench.economy_costs import NaiveCost, _message_tokens
from bench.economy_report import Replayed, report_costs, report_tokens
from bench.harness import make_manager, memories
from bench.providers import CountingProvider, Usage
from bench.report import Reporter
from bench.synthetic import GuildSpec, SyntheticGuild, load_guild, store_messages
from memory.context import MemoryManager
from memory.core import event_loop
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage
from memory.core.telemetry import Telemetry
from memory.episodes import EpisodeService
from memory.guilds import GuildDefaults, GuildSettingsCache
from memory.llm import MemoryLLM

_log = logging.getLogger(__name__)


async def run(
    pool: asyncpg.Pool,
    report: Reporter,
    *,
    members: int = 50,
    messages_per_day: int = 500,
    days: int = 7,
    request_rate: float = 0.05,
    latency: float = 0.0,
    seed: int = 0,
    episode_summaries: str = "digest",
) -> dict[str, float]:
    """Replay the guild, print the figures, return the headline ones."""
    history = 7
    guild = SyntheticGuild(
        GuildSpec(
            members=members, messages_per_day=messages_per_day, days=history + days, seed=seed
        )
    )
    params = {
        "members": members,
        "messages_per_day": messages_per_day,
        "days": days,
        "request_rate": request_rate,
        "latency_s": latency,
        "episode_summaries": episode_summaries,
    }
    naive = await _load_history(pool, guild, history, days)
    provider = CountingProvider(latency=latency)
    first_day = guild.day(days - 1)
    clock = FixedClock(
        datetime(first_day.year, first_day.month, first_day.day, 0, 1, tzinfo=guild.spec.now.tzinfo)
    )
    replayed = await _measure(
        pool, provider, clock, guild, naive, days, request_rate, seed, episode_summaries
    )
    after_restart, completed_day_calls = await _restart(pool, provider, clock, guild)
    report_tokens(report, params, guild, replayed.measured, days, request_rate)
    return report_costs(
        report,
        params,
        days=days,
        replayed=replayed,
        naive=naive,
        after_restart=after_restart,
        completed_day_calls=completed_day_calls,
        members=members,
    )


async def _load_history(
    pool: asyncpg.Pool, guild: SyntheticGuild, history: int, days: int
) -> NaiveCost:
    """Store the week before the measured days; the naive design counts it as read too (its
    requests look a week back), so it starts with those messages."""
    naive = NaiveCost()
    warmup_offsets = list(range(history + days - 1, days - 1, -1))
    await load_guild(pool, guild, days=warmup_offsets)
    for offset in warmup_offsets:
        messages = guild.messages(offset)
        naive.add_messages(messages, _message_tokens(guild, messages))
    return naive


async def _measure(
    pool: asyncpg.Pool,
    provider: CountingProvider,
    clock: FixedClock,
    guild: SyntheticGuild,
    naive: NaiveCost,
    days: int,
    request_rate: float,
    seed: int,
    episode_summaries: str,
) -> Replayed:
    """The warm-up week summarised once (not counted), then the measured days replayed with
    their calls counted, then every member brought up to date so a restart finds nothing new."""
    telemetry = Telemetry(keep_recent=1)
    summaries: list[dict[str, Any]] = []
    telemetry.add_sink(
        lambda event: summaries.append(event) if event["op"] == "daily_summary" else None
    )
    manager = make_manager(pool, provider, clock, telemetry=telemetry)
    # Episodes are cut as messages are stored and closed ones summarised by the worker's job:
    # their calls count in the ratio like every other.
    episodes = EpisodeService(
        pool,
        MemoryLLM(provider),
        GuildSettingsCache(pool, GuildDefaults()),
        clock=clock,
        telemetry=telemetry,
        llm_summaries=episode_summaries,
    )
    started = time.perf_counter()
    try:
        # The week before the measured days is summarised once: that is a one-off, not per-day.
        for user_id in guild.user_ids:
            await memories(manager, guild.spec.guild_id, user_id)
        await _episodes(episodes, guild.spec.guild_id)
        warmup = provider.reset()
        summaries.clear()
        requests = await _replay(
            pool, manager, clock, guild, naive, days, request_rate, seed, episodes
        )
        measured = provider.reset()
        measured_summaries = list(summaries)
        # Bring every member up to date at "now", so the restart below finds nothing new.
        clock.set(guild.spec.now)
        for user_id in guild.user_ids:
            await memories(manager, guild.spec.guild_id, user_id)
        provider.reset()
    finally:
        await manager.aclose()
        await episodes.aclose()
    elapsed = time.perf_counter() - started
    return Replayed(requests, warmup, measured, measured_summaries, elapsed)


async def _replay(
    pool: asyncpg.Pool,
    manager: MemoryManager,
    clock: FixedClock,
    guild: SyntheticGuild,
    naive: NaiveCost,
    days: int,
    request_rate: float,
    seed: int,
    episodes: EpisodeService,
) -> int:
    """The measured days, message by message: a share `request_rate` of them asks about its
    author and the members it mentions (the naive design answers the same requests); returns
    how many memories were asked for."""
    facts = guild.facts()
    rnd = random.Random(f"requests-{seed}")
    requests = 0
    for offset in range(days - 1, -1, -1):
        messages = guild.messages(offset)
        naive.add_messages(messages, _message_tokens(guild, messages))
        pending: list[ChatMessage] = []
        for message in messages:
            pending.append(message)
            if rnd.random() >= request_rate:
                continue
            await store_messages(pool, pending)
            pending = []
            clock.set(message.created_at)
            for user_id in dict.fromkeys((message.author_id, *message.mention_ids)):
                text = await memories(manager, guild.spec.guild_id, user_id)
                naive.request(user_id, message.created_at, facts.get(user_id, ""), text)
                requests += 1
        await store_messages(pool, pending)
        await _episodes(episodes, guild.spec.guild_id)
    return requests


async def _episodes(episodes: EpisodeService, guild_id: int) -> None:
    """What the worker's sweeps do over a day: cut what no episode covers, close quiet
    episodes, summarise the closed ones of the guild (batched)."""
    await episodes.refresh(datetime.min.replace(tzinfo=UTC))
    await episodes.summarize_guild(guild_id)


async def _restart(
    pool: asyncpg.Pool, provider: CountingProvider, clock: FixedClock, guild: SyntheticGuild
) -> tuple[Usage, int]:
    """A new process over the same database, at the same moment: every member once more; its
    usage and the calls it made for completed days (the target is none)."""
    restarted = make_manager(pool, provider, clock)
    try:
        for user_id in guild.user_ids:
            await memories(restarted, guild.spec.guild_id, user_id)
    finally:
        await restarted.aclose()
    after_restart = provider.reset()
    today = clock.now().date().isoformat()
    return after_restart, sum(n for day, n in after_restart.days.items() if day < today)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--messages-per-day", type=int, default=500)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument(
        "--request-rates",
        default="0.05,0.02,0.2",
        help="comma-separated shares of messages addressed to the bot; one replay each",
    )
    parser.add_argument("--latency", type=float, default=0.0, help="model latency, seconds")
    parser.add_argument(
        "--episode-summaries",
        default="digest",
        choices=("digest", "always", "never"),
        help="EPISODE_LLM_SUMMARIES of the replay (the synthetic guild has no digest)",
    )
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server:
        for rate in (float(item) for item in args.request_rates.split(",") if item.strip()):
            await run_in(
                server,
                report,
                members=args.members,
                messages_per_day=args.messages_per_day,
                days=args.days,
                request_rate=rate,
                latency=args.latency,
                episode_summaries=args.episode_summaries,
            )
    return 0


async def run_in(server: BenchServer, report: Reporter, **options: Any) -> dict[str, float]:
    """`run` in a fresh database of `server`."""
    async with server.pool("economy") as pool:
        return await run(pool, report, **options)


if __name__ == "__main__":
    sys.exit(event_loop.run(main()))
