"""Memory: bytes of process memory per cached member, at 10,000 members.

    python -m bench.memory_footprint [--guilds 100] [--members-per-guild 100]
                                     [--messages-per-day 300]

Every member's context is built once (filling the database), then a new MemoryManager serves
every member again under tracemalloc: the traced-memory delta of that pass, divided by the
members served, is what each cached member costs this process (context, history, today's batch
and warm entries with their keys and cache bookkeeping). A separate small guild is served first
so one-time allocations (statement caches, codecs, pools) are not counted. The caches are also
sized object by object to say which level holds what.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
import tracemalloc
import types
from collections.abc import Iterable
from typing import Any

import asyncpg

from bench.database import BenchServer, bench_server
from bench.harness import make_manager, memories
from bench.providers import CountingProvider
from bench.report import Reporter
from bench.synthetic import NOW, GuildSpec, SyntheticGuild, load_guild
from memory.context import MemoryManager
from memory.core import event_loop
from memory.core.clock import Clock, FixedClock

_log = logging.getLogger(__name__)

BENCH = "memory"
TARGET_BYTES = 6.5 * 1024
WARMUP_GUILD = 999


def deep_size(root: object, seen: set[int] | None = None) -> int:
    """Bytes of `root` and everything it holds (containers, strings, cache links), counting
    shared objects once - also across calls that pass the same `seen` - and never following
    functions, modules or classes."""
    seen = set() if seen is None else seen
    stack = [root]
    total = 0
    skip = (types.FunctionType, types.MethodType, types.ModuleType, type, types.BuiltinFunctionType)
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, skip):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        stack.extend(gc.get_referents(item))
    return total


def cache_sizes(manager: MemoryManager) -> dict[str, int]:
    """Deep size of each of the manager's caches (a benchmark may look inside). The warm
    entries are sized last and only for what they add: their context text is the very string
    the context cache holds."""
    storages = {
        "context": manager._builder.contexts._storage,
        "history": manager._builder.history.cache._storage,
        "today": manager._builder.today._storage,
        "warm": manager._warm._entries,
    }
    seen: set[int] = set()
    return {name: deep_size(storage, seen) for name, storage in storages.items()}


async def serve_all(
    manager: MemoryManager, members: Iterable[tuple[int, int]], concurrency: int = 8
) -> int:
    """Build every (guild, user) context with `concurrency` workers; returns how many.

    Workers, not one task per member: a finished gather keeps all its tasks (and their
    coroutines) alive until the event loop drops the handle that resumed the caller, and with
    one task per member that is ~650 bytes per member the traced delta would count."""
    pending = iter(members)
    count = 0

    async def worker() -> None:
        nonlocal count
        for guild_id, user_id in pending:
            await memories(manager, guild_id, user_id)
            count += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    await asyncio.sleep(0)  # let the loop drop the handle holding the finished gather
    return count


async def measure(
    pool: asyncpg.Pool, guilds: list[SyntheticGuild], warmup: SyntheticGuild, **settings: Any
) -> dict[str, Any]:
    """Build every member's context once, then trace a fresh manager serving them all."""
    members = [(g.spec.guild_id, user_id) for g in guilds for user_id in g.user_ids]
    first = [(warmup.spec.guild_id, user_id) for user_id in warmup.user_ids]
    provider = CountingProvider()
    clock = FixedClock(guilds[0].spec.now)
    builder = make_manager(pool, provider, clock, **settings)
    try:
        await serve_all(builder, first + members)
    finally:
        await builder.aclose()
    return await traced_serve(pool, clock, members, first, **settings)


async def traced_serve(
    pool: asyncpg.Pool,
    clock: Clock,
    members: list[tuple[int, int]],
    warmup: list[tuple[int, int]],
    **settings: Any,
) -> dict[str, Any]:
    """A new manager (a restart) serves `warmup`, then `members` under tracemalloc: the traced
    delta of the second part over its members, the caches' deep sizes, the LLM calls made."""
    provider = CountingProvider()
    excluded = {guild_id for guild_id, _ in warmup}
    gc.collect()
    tracemalloc.start()
    manager = make_manager(pool, provider, clock, **settings)
    try:
        await serve_all(manager, warmup)
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        served = await serve_all(manager, members)
        gc.collect()
        delta = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        sizes = cache_sizes(manager)
        contexts = [
            text
            for key, text in manager._builder.contexts._storage.items()
            if key[0] not in excluded and text
        ]
    finally:
        if tracemalloc.is_tracing():
            tracemalloc.stop()
        await manager.aclose()
    # The warm-up guild's entries are in the caches too; size them out proportionally.
    share = served / (served + len(warmup))
    chars = sum(len(text) for text in contexts)
    return {
        "members": served,
        "bytes_per_member": delta / served,
        "traced_delta_bytes": delta,
        "cached_contexts": len(contexts),
        "mean_context_chars": chars / max(1, len(contexts)),
        "context_bytes_per_char": sum(sys.getsizeof(t) for t in contexts) / max(1, chars),
        "cache_bytes": {name: size * share for name, size in sizes.items()},
        "cache_bytes_per_member": {name: size * share / served for name, size in sizes.items()},
        "restart_llm_calls": provider.usage.total_calls,
    }


async def run(
    pool: asyncpg.Pool,
    report: Reporter,
    *,
    guilds: int = 100,
    members_per_guild: int = 100,
    messages_per_day: int = 300,
    skew: float = 0.5,
    ascii_only: bool = False,
) -> dict[str, Any]:
    """Load the guilds, measure, print the figures, return them."""
    specs = [
        GuildSpec(
            guild_id=index + 1,
            members=members_per_guild,
            messages_per_day=messages_per_day,
            skew=skew,
            seed=index,
            now=NOW,
            ascii_only=ascii_only,
        )
        for index in range(guilds)
    ]
    synthetic = [SyntheticGuild(spec) for spec in specs]
    warmup = SyntheticGuild(GuildSpec(guild_id=WARMUP_GUILD, members=50, messages_per_day=100))
    for guild in [warmup, *synthetic]:
        await load_guild(pool, guild, analyze=False)
    await pool.execute("ANALYZE")
    total = guilds * members_per_guild
    # Caches big enough for every member: the figure is per cached member.
    result = await measure(
        pool,
        synthetic,
        warmup,
        cache_context_size=total + 100,
        cache_history_size=total + 100,
        cache_today_size=guilds + 10,
    )
    params = {
        "members": total,
        "guilds": guilds,
        "messages_per_day": messages_per_day,
        "ascii_only": ascii_only,
    }
    _report(report, result, params)
    return result


def _report(report: Reporter, result: dict[str, Any], params: dict[str, Any]) -> None:
    """The bytes a cached member costs (the target), by cache, and what explains them."""
    report(
        BENCH,
        "bytes_per_cached_member",
        result["bytes_per_member"],
        "bytes",
        target=TARGET_BYTES,
        method="tracemalloc",
        **params,
    )
    for name, size in result["cache_bytes_per_member"].items():
        report(BENCH, "cache_bytes_per_member", size, "bytes", cache=name, **params)
    report(BENCH, "traced_delta", result["traced_delta_bytes"] / 1e6, "MB", **params)
    report(BENCH, "members_with_context", result["cached_contexts"], "members", **params)
    report(BENCH, "mean_context_chars", result["mean_context_chars"], "chars", **params)
    report(
        BENCH, "context_bytes_per_char", result["context_bytes_per_char"], "bytes/char", **params
    )
    report(BENCH, "restart_llm_calls", result["restart_llm_calls"], "calls", target=0, **params)


async def run_in(server: BenchServer, report: Reporter, **options: Any) -> dict[str, Any]:
    """`run` in a fresh database of `server`."""
    async with server.pool("memory") as pool:
        return await run(pool, report, **options)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guilds", type=int, default=100)
    parser.add_argument("--members-per-guild", type=int, default=100)
    parser.add_argument("--messages-per-day", type=int, default=300)
    parser.add_argument("--ascii-only", action="store_true", help="chat without emoji/accents")
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server:
        await run_in(
            server,
            report,
            guilds=args.guilds,
            members_per_guild=args.members_per_guild,
            messages_per_day=args.messages_per_day,
            ascii_only=args.ascii_only,
        )
    return 0


if __name__ == "__main__":
    sys.exit(event_loop.run(main()))
