"""The fleet live: `shards` `memorybot run` processes and a `memorybot worker` on one
PostgreSQL, against the fake Discord serving every guild (bench/fleet_gateway.py); a message
rate that ramps until the ingest lag grows; each shard's resident memory at READY and after.

Ingest lag is read from the database: a message's `ingested_at` (the insert's transaction
time) minus its `created_at` (when the fake sent it; same clock), for every message of a step.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from bench.fleet_gateway import FleetProcess
from bench.fleet_procs import Children, fleet_env

_log = logging.getLogger(__name__)

LAG_TARGET_S = 2.0
# A step whose messages are not all stored this long after it ended has broken.
DRAIN_SECONDS = 20.0


def guild_sizes(guilds: int) -> list[int]:
    """Members of each guild, Zipf by rank: a few big guilds (500 members), most of 2-5."""
    return [max(2, int(500 / (rank + 1) ** 0.8)) for rank in range(guilds)]


@dataclass
class Step:
    """One rate of the ramp, as the database saw it."""

    rate: float
    achieved: float
    sent: int
    stored: int
    guilds_spoke: int
    lag_p50: float
    lag_p99: float
    lag_max: float
    queries_per_message: float = 0.0  # the database's transactions over the messages sent
    # The shards' cache misses (each a read) per message sent, by cache.
    misses_per_message: dict[str, float] = field(default_factory=dict)

    @property
    def held(self) -> bool:
        return self.stored >= self.sent and self.lag_p99 <= LAG_TARGET_S

    def fields(self) -> dict[str, Any]:
        return {"rate": self.rate, "achieved_rate": round(self.achieved, 1)}


@dataclass
class FleetRun:
    guilds: int
    shards: int
    rss_ready: dict[str, float] = field(default_factory=dict)
    rss_after: dict[str, float] = field(default_factory=dict)
    rss_first_step: dict[str, float] = field(default_factory=dict)  # same messages at any size
    steps: list[Step] = field(default_factory=list)
    ready_seconds: float = 0.0


async def run_fleet(
    dsn: str,
    *,
    guilds: int,
    shards: int,
    rates: Sequence[float],
    step_seconds: float,
    shard_env: Mapping[str, str] | None = None,
) -> FleetRun:
    """Start the fleet, wait for every guild, ramp the rates (stop at the first that breaks);
    `shard_env` adds settings to the shards' environment (a test plants a slow writer)."""
    result = FleetRun(guilds, shards)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    try:
        with tempfile.TemporaryDirectory(prefix="fleet-") as folder:
            async with FleetProcess(guild_sizes(guilds)) as fake:
                env = fleet_env(dsn, fake.api_base, fake.gateway_url, Path(folder))
                async with Children(env, Path(folder)) as children:
                    began = time.perf_counter()
                    children.shards(shards, **(shard_env or {}))
                    children.start("worker", "worker")
                    await _all_guilds_known(pool, children, guilds)
                    result.ready_seconds = time.perf_counter() - began
                    result.rss_ready = _shard_rss(children, shards)
                    for rate in rates:
                        misses = await asyncio.to_thread(children.cache_misses)
                        step = await _step(pool, fake, rate, step_seconds)
                        after = await asyncio.to_thread(children.cache_misses)
                        step.misses_per_message = {
                            name: (count - misses.get(name, 0)) / max(1, step.sent)
                            for name, count in after.items()
                        }
                        result.steps.append(step)
                        if len(result.steps) == 1:
                            result.rss_first_step = _shard_rss(children, shards)
                        _log.info("fleet step %s", step)
                        if not step.held:
                            break
                    result.rss_after = _shard_rss(children, shards)
    finally:
        await pool.close()
    return result


def _shard_rss(children: Children, shards: int) -> dict[str, float]:
    return {f"shard{n}": children.rss_mb(f"shard{n}") for n in range(shards)}


async def _all_guilds_known(pool: asyncpg.Pool, children: Children, guilds: int) -> None:
    """Until every guild's row is stored (each shard saw its GUILD_CREATEs) and the shards
    settled; a process that died stops the bench with its output."""
    deadline = time.perf_counter() + 120 + guilds * 0.05
    while time.perf_counter() < deadline:
        dead = children.dead()
        if dead:
            raise RuntimeError(f"{dead[0]} stopped:\n{children.output(dead[0])}")
        if await pool.fetchval("SELECT count(*) FROM guilds") >= guilds:
            return
        await asyncio.sleep(0.5)  # polling the database, not a test
    raise TimeoutError(f"not every guild was stored:\n{children.output('shard0')}")


async def _step(pool: asyncpg.Pool, fake: FleetProcess, rate: float, seconds: float) -> Step:
    # The fake stamps messages to the millisecond (as snowflakes carry them): so is `since`.
    now = datetime.now(UTC)
    since = now.replace(microsecond=now.microsecond // 1000 * 1000)
    before = await _transactions(pool)
    sent = await fake.call("send", rate, seconds)
    deadline = time.perf_counter() + DRAIN_SECONDS
    stored = 0
    while time.perf_counter() < deadline:
        stored = await pool.fetchval("SELECT count(*) FROM messages WHERE created_at >= $1", since)
        if stored >= sent["sent"]:
            break
        await asyncio.sleep(0.2)  # polling the database, not a test
    row = await pool.fetchrow(
        """
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50,
               percentile_cont(0.99) WITHIN GROUP (ORDER BY lag) AS p99, max(lag) AS top
        FROM (SELECT extract(epoch FROM ingested_at - created_at)::float8 AS lag
              FROM messages WHERE created_at >= $1) AS lags
        """,
        since,
    )
    assert row is not None  # an aggregate always answers one row
    missing = stored < sent["sent"]
    queries = await _transactions(pool) - before
    return Step(
        rate=rate,
        achieved=sent["achieved_rate"],
        sent=sent["sent"],
        stored=stored,
        guilds_spoke=sent["guilds_spoke"],
        lag_p50=row["p50"] or 0.0,
        # Messages never stored lag at least as long as the drain waited.
        lag_p99=max(row["p99"] or 0.0, DRAIN_SECONDS if missing else 0.0),
        lag_max=max(row["top"] or 0.0, DRAIN_SECONDS if missing else 0.0),
        queries_per_message=queries / max(1, sent["sent"]),
    )


async def _transactions(pool: asyncpg.Pool) -> int:
    """Transactions committed in this database so far (every process's queries; the
    statistics lag by up to a second, so a step's count includes its drain)."""
    await pool.execute("SELECT pg_stat_clear_snapshot()")
    return int(
        await pool.fetchval(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database"
            " WHERE datname = current_database()"
        )
    )
