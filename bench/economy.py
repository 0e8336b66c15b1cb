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
from bench.economy_costs import NaiveCost, _message_chars, _message_tokens, _raw_tokens
from bench.harness import make_manager, memories
from bench.providers import TOKENIZER, CountingProvider, Usage
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

BENCH = "economy"


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
    naive = NaiveCost()
    warmup_offsets = list(range(history + days - 1, days - 1, -1))
    await load_guild(pool, guild, days=warmup_offsets)
    for offset in warmup_offsets:
        messages = guild.messages(offset)
        naive.add_messages(messages, _message_tokens(guild, messages))

    provider = CountingProvider(latency=latency)
    telemetry = Telemetry(keep_recent=1)
    summaries: list[dict[str, Any]] = []
    telemetry.add_sink(
        lambda event: summaries.append(event) if event["op"] == "daily_summary" else None
    )
    first_day = guild.day(days - 1)
    clock = FixedClock(
        datetime(first_day.year, first_day.month, first_day.day, 0, 1, tzinfo=guild.spec.now.tzinfo)
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

    after_restart, completed_day_calls = await _restart(pool, provider, clock, guild)
    _report_tokens(report, params, guild, measured, days, request_rate)
    return _report(
        report,
        params,
        days=days,
        requests=requests,
        warmup=warmup,
        measured=measured,
        naive=naive,
        after_restart=after_restart,
        completed_day_calls=completed_day_calls,
        members=members,
        elapsed=elapsed,
        summaries=measured_summaries,
    )


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


def _report_tokens(
    report: Reporter,
    params: dict[str, Any],
    guild: SyntheticGuild,
    measured: Usage,
    days: int,
    request_rate: float,
) -> None:
    """Raw chat tokens per guild-day and the hierarchy's multiple of them."""
    replayed = [message for offset in range(days) for message in guild.messages(offset)]
    raw = sum(_raw_tokens(guild, guild.messages(offset)) for offset in range(days)) / days
    report(BENCH, "raw_tokens_per_guild_day", raw, "tokens", tokenizer=TOKENIZER, **params)
    ratio = measured.total_tokens / days / raw if raw else float("inf")
    report(
        BENCH,
        "hierarchy_to_raw_token_ratio",
        ratio,
        "x",
        tokenizer=TOKENIZER,
        target=3.0 if request_rate <= 0.05 else 4.0,
        **params,
    )
    report(
        BENCH,
        "response_schema_tokens_per_guild_day",
        sum(measured.schema_tokens.values()) / days,
        "tokens",
        note="sent beside the prompts by structured calls; in no ratio",
        **params,
    )
    xml_chars, content_chars = _message_chars(guild, replayed)
    report(BENCH, "prompt_chars_per_message", xml_chars, "chars", **params)
    report(BENCH, "content_chars_per_message", content_chars, "chars", **params)


def _report(
    report: Reporter,
    params: dict[str, object],
    *,
    days: int,
    requests: int,
    warmup: Usage,
    measured: Usage,
    naive: NaiveCost,
    after_restart: Usage,
    completed_day_calls: int,
    members: int,
    elapsed: float,
    summaries: list[dict[str, Any]],
) -> dict[str, float]:
    calls = measured.total_calls / days
    tokens = measured.total_tokens / days
    naive_calls = naive.calls / days
    naive_tokens = (naive.input_tokens + naive.output_tokens) / days
    report(BENCH, "requests_per_guild_day", requests / days, "requests", **params)
    report(BENCH, "warmup_calls_first_week", warmup.total_calls, "calls", **params)
    for purpose in sorted(measured.calls):
        report(
            BENCH,
            "hierarchy_calls_per_guild_day",
            measured.calls[purpose] / days,
            "calls",
            purpose=purpose,
            **params,
        )
    report(BENCH, "hierarchy_calls_per_guild_day", calls, "calls", purpose="all", **params)
    for purpose in sorted(measured.calls):
        purpose_tokens = measured.input_tokens[purpose] + measured.output_tokens[purpose]
        report(
            BENCH,
            "hierarchy_tokens_per_guild_day",
            purpose_tokens / days,
            "tokens",
            purpose=purpose,
            **params,
        )
    report(BENCH, "hierarchy_tokens_per_guild_day", tokens, "tokens", purpose="all", **params)
    if summaries:
        report(BENCH, "day_summarisations_per_guild_day", len(summaries) / days, "runs", **params)
        chunks = sum(int(event.get("chunks") or 0) for event in summaries) / len(summaries)
        report(BENCH, "chunks_per_day_summarisation", chunks, "chunks", **params)
    report(BENCH, "naive_calls_per_guild_day", naive_calls, "calls", **params)
    report(BENCH, "naive_tokens_per_guild_day", naive_tokens, "tokens", **params)
    call_ratio = naive_calls / calls if calls else float("inf")
    token_ratio = naive_tokens / tokens if tokens else float("inf")
    report(BENCH, "naive_to_hierarchy_call_ratio", call_ratio, "x", **params)
    report(BENCH, "naive_to_hierarchy_token_ratio", token_ratio, "x", **params)
    report(
        BENCH,
        "restart_calls_completed_days",
        completed_day_calls,
        "calls",
        target=0,
        requests=members,
        **params,
    )
    report(
        BENCH, "restart_calls_total", after_restart.total_calls, "calls", requests=members, **params
    )
    report(BENCH, "replay_seconds", elapsed, "s", **params)
    return {
        "calls_per_guild_day": calls,
        "naive_calls_per_guild_day": naive_calls,
        "call_ratio": call_ratio,
        "token_ratio": token_ratio,
        "restart_completed_day_calls": completed_day_calls,
        "restart_calls": after_restart.total_calls,
    }


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
