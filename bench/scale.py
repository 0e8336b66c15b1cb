"""Scale: how LLM calls, latency and memory grow with members, guilds and messages.

    python -m bench.scale [--sweeps members,guilds,messages] [--requested 200]

Three sweeps over a week of synthetic chat (7 guild-days per guild):
- members: one guild of 10 .. 10,000 members (messages per day grow with them);
- guilds: 1 .. 100 guilds of 20 members;
- messages: one guild of 50 members saying 100 .. 10,000 messages a day.
In each case up to `--requested` members (round robin over the guilds, most active first) ask
for their memories once (cold), then 500 warm requests are timed, then a restarted manager
serves them again under tracemalloc. Daily calls should follow guild-days; per-member calls
follow the members asked about; neither should follow the raw message count, except where a
day no longer fits one prompt (DAILY_PROMPT_MAX_CHARS) and is chunked and reduced.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

import asyncpg

from bench.database import BenchServer, bench_server
from bench.harness import REPLY_BUDGET, make_manager, memories, timed
from bench.memory_footprint import traced_serve
from bench.providers import CountingProvider, Usage
from bench.report import Reporter, percentile
from bench.synthetic import GuildSpec, SyntheticGuild, load_guild
from memory.context import MemoryManager
from memory.core import event_loop
from memory.core.clock import FixedClock

_log = logging.getLogger(__name__)

BENCH = "scale"
DAYS = 7
WARMUP_GUILD = 999
DAILY_PURPOSES = ("daily_summary", "daily_reduce")


@dataclass(frozen=True)
class Case:
    sweep: str
    guilds: int
    members: int  # per guild
    messages_per_day: int  # per guild


def cases(sweeps: list[str], max_members: int = 10_000) -> list[Case]:
    """The grid; `max_members` trims the largest cases (smoke tests)."""
    grid: list[Case] = []
    if "members" in sweeps:
        for members in (10, 100, 1_000, 10_000):
            grid.append(Case("members", 1, members, members // 2 + 50))
    if "guilds" in sweeps:
        for guilds in (1, 10, 100):
            grid.append(Case("guilds", guilds, 20, 40))
    if "messages" in sweeps:
        for messages in (100, 1_000, 10_000):
            grid.append(Case("messages", 1, 50, messages))
    return [case for case in grid if case.guilds * case.members <= max_members]


async def run_case(
    pool: asyncpg.Pool,
    report: Reporter,
    case: Case,
    *,
    requested: int = 200,
    warm_requests: int = 500,
    scale_down: int = 1,
) -> dict[str, Any]:
    """Load the case's guilds, measure, print one figure per metric."""
    guilds, warmup, stored = await _load_case(pool, case, scale_down)

    asked = _asked(guilds, case, requested)
    count = len(asked)
    first = [(warmup.spec.guild_id, user_id) for user_id in warmup.user_ids]
    clock = FixedClock(guilds[0].spec.now)
    settings: dict[str, Any] = {
        "cache_context_size": count + 100,
        "cache_history_size": count + 100,
        "cache_today_size": case.guilds + 10,
    }
    provider = CountingProvider()
    manager = make_manager(pool, provider, clock, **settings)
    try:
        served = await _serve_all(manager, provider, first, asked, warm_requests)
    finally:
        await manager.aclose()
    memory = await traced_serve(pool, clock, asked, first, **settings)

    figures = _figures(case, stored, count, served, memory)
    params = {
        "sweep": case.sweep,
        "guilds": case.guilds,
        "members_per_guild": case.members,
        "messages_per_day": max(1, case.messages_per_day // scale_down),
    }
    for metric, (value, unit) in figures.items():
        report(BENCH, metric, value, unit, **params)
    return {metric: value for metric, (value, _) in figures.items()}


def _asked(guilds: list[SyntheticGuild], case: Case, requested: int) -> list[tuple[int, int]]:
    """Up to `requested` (guild, member) pairs, round robin over the guilds, each guild's most
    active members first: the members the case asks about."""
    count = min(requested, case.guilds * case.members)
    return [
        (guilds[i % case.guilds].spec.guild_id, guilds[i % case.guilds].user_ids[i // case.guilds])
        for i in range(count)
    ]


def _figures(
    case: Case,
    stored: int,
    count: int,
    served: tuple[list[float], float, Usage, list[float]],
    memory: dict[str, Any],
) -> dict[str, tuple[float, str]]:
    """Each metric of the case with its unit: calls per guild-day and per member asked (what
    should follow guild-days and members, not messages), timings, and bytes per member."""
    cold, build_seconds, usage, warm = served
    guild_days = case.guilds * DAYS
    daily_calls = sum(usage.calls[purpose] for purpose in DAILY_PURPOSES)
    daily_tokens = sum(usage.input_tokens[p] + usage.output_tokens[p] for p in DAILY_PURPOSES)
    member_calls = usage.total_calls - daily_calls
    cold_guild = cold[: case.guilds]
    cold_member = cold[case.guilds :]
    return {
        "messages_stored": (stored, "messages"),
        "guild_days": (guild_days, "guild-days"),
        "requested_members": (count, "members"),
        "daily_calls_per_guild_day": (daily_calls / guild_days, "calls"),
        "daily_reduce_calls_per_guild_day": (usage.calls["daily_reduce"] / guild_days, "calls"),
        "daily_tokens_per_guild_day": (daily_tokens / guild_days, "tokens"),
        "member_calls_per_requested_member": (member_calls / count, "calls"),
        "total_llm_calls": (usage.total_calls, "calls"),
        "build_all_seconds": (build_seconds, "s"),
        "cold_guild_p50_ms": (percentile(cold_guild, 0.5), "ms"),
        "cold_member_p50_ms": (percentile(cold_member, 0.5), "ms"),
        "warm_p50_ms": (percentile(warm, 0.5), "ms"),
        "warm_p99_ms": (percentile(warm, 0.99), "ms"),
        "bytes_per_requested_member": (memory["bytes_per_member"], "bytes"),
        "context_history_bytes_per_member": (
            memory["cache_bytes_per_member"]["context"]
            + memory["cache_bytes_per_member"]["history"],
            "bytes",
        ),
        "today_batch_bytes_per_guild": (memory["cache_bytes"]["today"] / case.guilds, "bytes"),
        "restart_llm_calls": (memory["restart_llm_calls"], "calls"),
    }


async def _load_case(
    pool: asyncpg.Pool, case: Case, scale_down: int
) -> tuple[list[SyntheticGuild], SyntheticGuild, int]:
    """The case's guilds and a small warm-up guild, stored; messages stored for the case."""
    guilds = [
        SyntheticGuild(
            GuildSpec(
                guild_id=index + 1,
                members=case.members,
                messages_per_day=max(1, case.messages_per_day // scale_down),
                days=DAYS,
                seed=index,
            )
        )
        for index in range(case.guilds)
    ]
    warmup = SyntheticGuild(GuildSpec(guild_id=WARMUP_GUILD, members=20, messages_per_day=40))
    stored = 0
    for guild in [warmup, *guilds]:
        stored += await load_guild(pool, guild, analyze=False)
    await pool.execute("ANALYZE")
    stored -= len([m for offset in range(DAYS) for m in warmup.messages(offset)])

    return guilds, warmup, stored


async def _serve_all(
    manager: MemoryManager,
    provider: CountingProvider,
    first: list[tuple[int, int]],
    asked: list[tuple[int, int]],
    warm_requests: int,
) -> tuple[list[float], float, Usage, list[float]]:
    """Warm-up members first, then every asked member cold, then warm requests over them."""
    for guild_id, user_id in first:
        await memories(manager, guild_id, user_id)
    provider.reset()
    started = time.perf_counter()
    cold = []
    for guild_id, user_id in asked:
        elapsed, _ = await timed(partial(memories, manager, guild_id, user_id))
        cold.append(elapsed)
    build_seconds = time.perf_counter() - started
    usage = provider.reset()
    rnd = random.Random(7)
    warm = []
    for _ in range(warm_requests):
        guild_id, user_id = rnd.choice(asked)
        warm.append(
            (await timed(partial(manager.get_memories, guild_id, user_id, budget=REPLY_BUDGET)))[0]
        )
    return cold, build_seconds, usage, warm


async def run(
    server: BenchServer,
    report: Reporter,
    *,
    sweeps: list[str] | None = None,
    requested: int = 200,
    warm_requests: int = 500,
    max_members: int = 10_000,
    scale_down: int = 1,
) -> list[dict[str, Any]]:
    """Every case of the chosen sweeps, each in a fresh database."""
    results = []
    for case in cases(sweeps or ["members", "guilds", "messages"], max_members):
        async with server.pool("scale") as pool:
            results.append(
                await run_case(
                    pool,
                    report,
                    case,
                    requested=requested,
                    warm_requests=warm_requests,
                    scale_down=scale_down,
                )
            )
    return results


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", default="members,guilds,messages")
    parser.add_argument("--requested", type=int, default=200)
    parser.add_argument("--warm-requests", type=int, default=500)
    parser.add_argument("--max-members", type=int, default=10_000)
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server:
        await run(
            server,
            report,
            sweeps=[item.strip() for item in args.sweeps.split(",") if item.strip()],
            requested=args.requested,
            warm_requests=args.warm_requests,
            max_members=args.max_members,
        )
    return 0


if __name__ == "__main__":
    sys.exit(event_loop.run(main()))
