"""Context latency: get_memories warm, cold with a model latency L, after a restart, and 100
concurrent requests for one member.

    python -m bench.latency [--members 200] [--messages-per-day 1000] [--latency 0.05]
                            [--warm-requests 2000]

Warm means every cache is filled (the member's context was built this process); cold guild
means nothing is summarised yet (the first request pays for the week); cold member means the
guild's days are summarised but this member's history and merge are not; restart is a new
MemoryManager over a database where everything is stored. The warm path's database round
trips are counted (none since a member's last build is served from memory for the rest of its
hour), and each query of a build - a member's first request of the hour, or after a restart -
is timed on its own (`warm_query_p50_ms`, named when those were the warm path's queries).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import timedelta
from functools import partial
from typing import Any

import asyncpg

from bench.database import BenchServer, bench_server
from bench.harness import REPLY_BUDGET, make_manager, memories, timed
from bench.providers import CountingProvider
from bench.report import Reporter, percentile
from bench.synthetic import GuildSpec, SyntheticGuild, load_guild
from db import summaries as store
from db.facts import get_facts, get_forgotten
from db.members import get_members
from memory.context import MemoryManager
from memory.context._merge import HISTORY_DAYS
from memory.core import event_loop
from memory.core.clock import FixedClock, day_bounds
from memory.summaries import load_guild_forgotten

_log = logging.getLogger(__name__)

BENCH = "latency"
WARM_TARGET_P99_MS = 1.0
_QUERIES = frozenset({"fetch", "fetchrow", "fetchval", "execute", "executemany"})


class CountingPool:
    """A pool that counts the queries sent through it (connections acquired are not counted:
    only a day being summarised takes one, under its advisory lock)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self.queries: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._pool, name)
        if name not in _QUERIES:
            return attribute

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.queries[name] += 1
            return await attribute(*args, **kwargs)

        return counted

    @property
    def total(self) -> int:
        return sum(self.queries.values())


def _ms_stats(values: list[float]) -> dict[str, float]:
    return {
        "p50": percentile(values, 0.5),
        "p99": percentile(values, 0.99),
        "max": max(values) if values else 0.0,
    }


async def run(
    pool: asyncpg.Pool,
    report: Reporter,
    *,
    members: int = 200,
    messages_per_day: int = 1000,
    latency: float = 0.05,
    warm_requests: int = 2000,
    concurrent: int = 100,
    cold_members: int = 30,
) -> dict[str, float]:
    """Measure, print the figures, return the headline ones."""
    spec = GuildSpec(guild_id=1, members=members, messages_per_day=messages_per_day)
    main_guild = SyntheticGuild(spec)
    cold_guild = SyntheticGuild(
        GuildSpec(guild_id=2, members=members, messages_per_day=messages_per_day, seed=1)
    )
    await load_guild(pool, main_guild)
    await load_guild(pool, cold_guild)

    params: dict[str, Any] = {"members": members, "messages_per_day": messages_per_day}
    with_l = {**params, "latency_s": latency}
    counting = CountingPool(pool)
    provider = CountingProvider(latency=latency)
    clock = FixedClock(spec.now)
    manager = make_manager(counting, provider, clock)  # type: ignore[arg-type]
    guild = spec.guild_id
    busiest, *others = main_guild.user_ids
    results: dict[str, float] = {}
    try:
        # 1. A guild nobody asked about yet: the first request pays for the whole week.
        results |= await _cold_guild(manager, provider, report, cold_guild, with_l)
        # 2. 100 concurrent requests for one member of another cold guild: one build.
        results |= await _concurrent(manager, provider, report, guild, busiest, concurrent, with_l)
        # 3. Members whose guild-days are summarised but who were never built: history + merge.
        asked = others[:cold_members]
        results |= await _cold_members(manager, provider, report, guild, asked, with_l)
        # 4. Warm: every member built once, then requests spread over them (Zipf-free).
        provider.latency = 0.0
        results |= await _warm(
            pool, counting, provider, manager, report, main_guild, warm_requests, params
        )
    finally:
        await manager.aclose()

    # 5. A restart: a new manager over a database where everything is stored.
    provider.latency = latency
    results |= await _restart(pool, provider, clock, report, main_guild, with_l)
    return results


async def _cold_guild(
    manager: MemoryManager,
    provider: CountingProvider,
    report: Reporter,
    cold_guild: SyntheticGuild,
    with_l: dict[str, Any],
) -> dict[str, float]:
    """The first request in a guild nobody asked about: it pays for summarising the week."""
    provider.reset()
    first = cold_guild.user_ids[0]
    elapsed, _ = await timed(lambda: manager.wait_for_context(cold_guild.spec.guild_id, first))
    report(BENCH, "cold_guild_ms", elapsed, "ms", llm_calls=provider.usage.total_calls, **with_l)
    return {"cold_guild_ms": elapsed}


async def _concurrent(
    manager: MemoryManager,
    provider: CountingProvider,
    report: Reporter,
    guild: int,
    user_id: int,
    concurrent: int,
    with_l: dict[str, Any],
) -> dict[str, float]:
    """`concurrent` requests at once for one member never built: one build, shared by all
    (the others wait for it instead of building again)."""
    provider.reset()
    started = time.perf_counter()
    reports = await asyncio.gather(
        *(manager.wait_for_context(guild, user_id) for _ in range(concurrent))
    )
    wall = (time.perf_counter() - started) * 1000
    builds = sum(1 for item in reports if not item.shared)
    common = {"concurrent": concurrent, **with_l}
    report(BENCH, "concurrent_builds", builds, "builds", target=1, **common)
    report(BENCH, "concurrent_llm_calls", provider.usage.total_calls, "calls", **common)
    report(BENCH, "concurrent_wall_ms", wall, "ms", **common)
    return {"concurrent_builds": builds, "concurrent_llm_calls": provider.usage.total_calls}


async def _cold_members(
    manager: MemoryManager,
    provider: CountingProvider,
    report: Reporter,
    guild: int,
    asked: list[int],
    with_l: dict[str, Any],
) -> dict[str, float]:
    """Members whose guild-days are summarised but who were never built: what their history
    and merge cost, one after the other."""
    provider.reset()
    cold = [await _time_member(manager, guild, user_id) for user_id in asked]
    stats = _ms_stats(cold)
    calls = provider.usage.total_calls / max(1, len(cold))
    for name in ("p50", "p99"):
        report(BENCH, f"cold_member_{name}_ms", stats[name], "ms", samples=len(cold), **with_l)
    report(BENCH, "cold_member_llm_calls", calls, "calls/request", **with_l)
    return {"cold_member_p50_ms": stats["p50"]}


async def _warm(
    pool: asyncpg.Pool,
    counting: CountingPool,
    provider: CountingProvider,
    manager: MemoryManager,
    report: Reporter,
    main_guild: SyntheticGuild,
    warm_requests: int,
    params: dict[str, Any],
) -> dict[str, float]:
    """Every member built once, then `warm_requests` requests spread over them."""
    guild = main_guild.spec.guild_id
    busiest = main_guild.user_ids[0]
    results: dict[str, float] = {}
    for user_id in main_guild.user_ids:
        await memories(manager, guild, user_id)
    provider.reset()
    rnd = random.Random(4)
    before = counting.total
    warm: list[float] = []
    for _ in range(warm_requests):
        user_id = rnd.choice(main_guild.user_ids)
        elapsed, _ = await timed(partial(manager.get_memories, guild, user_id, budget=REPLY_BUDGET))
        warm.append(elapsed)
    stats = _ms_stats(warm)
    round_trips = (counting.total - before) / warm_requests
    common = {"samples": warm_requests, **params}
    report(BENCH, "warm_p50_ms", stats["p50"], "ms", **common)
    report(BENCH, "warm_p99_ms", stats["p99"], "ms", target=WARM_TARGET_P99_MS, **common)
    report(BENCH, "warm_max_ms", stats["max"], "ms", **common)
    report(BENCH, "warm_llm_calls", provider.usage.total_calls, "calls", **common)
    report(BENCH, "warm_db_round_trips", round_trips, "queries/request", **common)
    results["warm_p50_ms"], results["warm_p99_ms"] = stats["p50"], stats["p99"]
    results["warm_db_round_trips"] = round_trips
    for name, millis in (await _warm_query_breakdown(pool, main_guild, busiest)).items():
        report(BENCH, "warm_query_p50_ms", millis, "ms", query=name, **params)
    return results


async def _restart(
    pool: asyncpg.Pool,
    provider: CountingProvider,
    clock: FixedClock,
    report: Reporter,
    main_guild: SyntheticGuild,
    with_l: dict[str, Any],
) -> dict[str, float]:
    """A new manager over a database where everything is stored: no LLM call."""
    guild = main_guild.spec.guild_id
    results: dict[str, float] = {}
    provider.reset()
    restarted = make_manager(pool, provider, clock)
    try:
        after = [await _time_member(restarted, guild, uid) for uid in main_guild.user_ids]
    finally:
        await restarted.aclose()
    stats = _ms_stats(after)
    common = {"samples": len(after), **with_l}
    report(BENCH, "restart_p50_ms", stats["p50"], "ms", **common)
    report(BENCH, "restart_p99_ms", stats["p99"], "ms", **common)
    report(BENCH, "restart_llm_calls", provider.usage.total_calls, "calls", target=0, **common)
    results["restart_llm_calls"] = provider.usage.total_calls
    return results


async def _time_member(manager: MemoryManager, guild: int, user_id: int) -> float:
    elapsed, _ = await timed(lambda: manager.wait_for_context(guild, user_id))
    return elapsed


async def _warm_query_breakdown(
    pool: asyncpg.Pool, guild: SyntheticGuild, user_id: int, samples: int = 200
) -> dict[str, float]:
    """p50 of each query a warm request makes, run on its own with the same arguments."""
    guild_id, today = guild.spec.guild_id, guild.today
    first, last = today - timedelta(days=HISTORY_DAYS), today - timedelta(days=1)
    days = [first + timedelta(days=offset) for offset in range(HISTORY_DAYS)]
    start, end = day_bounds(first, "UTC")[0], day_bounds(last, "UTC")[1]
    queries: dict[str, Callable[[], Awaitable[Any]]] = {
        "guild_timezone": lambda: store.guild_timezone(pool, guild_id),
        "get_facts": lambda: get_facts(pool, guild_id, user_id),
        "get_forgotten": lambda: get_forgotten(pool, guild_id, user_id),
        "guild_forgotten": lambda: load_guild_forgotten(pool, guild_id),
        "get_members": lambda: get_members(pool, guild_id, [user_id]),
        "day_states": lambda: store.day_states(pool, guild_id, days, "UTC", start, end),
        "member_daily_summaries": lambda: store.member_daily_summaries(
            pool, guild_id, user_id, first, last
        ),
        "select_1": lambda: pool.fetchval("SELECT 1"),
    }
    result = {}
    for name, query in queries.items():
        timings = [(await timed(query))[0] for _ in range(samples)]
        result[name] = percentile(timings, 0.5)
    return result


async def run_in(server: BenchServer, report: Reporter, **options: Any) -> dict[str, float]:
    """`run` in a fresh database of `server`."""
    async with server.pool("latency") as pool:
        return await run(pool, report, **options)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--messages-per-day", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05, help="model latency L, seconds")
    parser.add_argument("--warm-requests", type=int, default=2000)
    parser.add_argument("--concurrent", type=int, default=100)
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server:
        await run_in(
            server,
            report,
            members=args.members,
            messages_per_day=args.messages_per_day,
            latency=args.latency,
            warm_requests=args.warm_requests,
            concurrent=args.concurrent,
        )
    return 0


if __name__ == "__main__":
    sys.exit(event_loop.run(main()))
