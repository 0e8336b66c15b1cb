"""The fleet bench: many guilds across shard processes and a worker on one PostgreSQL.

    python -m bench --only fleet [--guilds 10000] [--write-docs]

Four parts, each in its own module:
- live (bench/fleet_ingest.py): `shards` `memorybot run` processes and a `memorybot worker`
  against the end-to-end tests' fake Discord serving `guilds` guilds with Zipf sizes; a message
  rate that doubles every `step_seconds` until the ingest lag p99 passes 2 s or messages go
  missing (where it breaks); each shard's RSS at READY and after the ramp, at `small_guilds`
  (READY and one step) and at `guilds`;
- the day close (bench/fleet_days.py): calls and tokens of closing sample guild-days through the
  worker's path, extrapolated to one day of 1k / 10k / 100k guilds under 60 requests/min (and
  under the default LLM_DAILY_REQUESTS_PER_MINUTE), and what a member's reply gets meanwhile;
- the database (bench/fleet_size.py): bytes per message with and without vectors, measured on a
  sample and extrapolated to the fleets' retained messages.
Extrapolated figures say so (`extrapolated=True`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from bench.database import BenchServer
from bench.fleet_days import FleetDay, fleet_day, sample_days
from bench.fleet_ingest import LAG_TARGET_S, FleetRun, run_fleet
from bench.fleet_size import measure, retained_messages
from bench.providers import TOKENIZER
from bench.report import Reporter

_log = logging.getLogger(__name__)

BENCH = "fleet"
FLEETS = (1_000, 10_000, 100_000)  # the sizes every extrapolated figure is given at
LIMIT_RPM = 60.0
DEFAULT_DAILY_RPM = 10.0  # LLM_DAILY_REQUESTS_PER_MINUTE's default
_MB = 1024 * 1024


async def run_in(
    server: BenchServer,
    report: Reporter,
    *,
    guilds: int,
    small_guilds: int,
    shards: int,
    rates: Sequence[float],
    step_seconds: float,
    day_volumes: Sequence[int],
    size_guilds: int,
    size_messages_per_day: int,
) -> None:
    async with server.database("fleet_small") as dsn:
        small = await run_fleet(
            dsn, guilds=small_guilds, shards=shards, rates=rates[:1], step_seconds=step_seconds
        )
    async with server.database("fleet") as dsn:
        large = await run_fleet(
            dsn, guilds=guilds, shards=shards, rates=rates, step_seconds=step_seconds
        )
    report_ingest(report, large, step_seconds)
    report_rss(report, small, large)
    async with server.pool("fleet_days") as pool:
        samples, meanwhile = await sample_days(pool, day_volumes)
    sampled = {"sampled_volumes": "/".join(str(s.messages) for s in samples)}
    for fleet in FLEETS:
        report_day(report, fleet_day(fleet, samples, LIMIT_RPM), sampled)
    common = {"model_answer_s": 30.0, "fallback": meanwhile.fallback or "none"}
    common["sources"] = "+".join(meanwhile.sources) or "none"
    report(BENCH, "member_served_while_day_open", int(meanwhile.served), "bool", **common)
    report(BENCH, "member_served_while_day_open_ms", meanwhile.elapsed_ms, "ms", **common)
    async with server.pool("fleet_size") as pool:
        size = await measure(pool, guilds=size_guilds, messages_per_day=size_messages_per_day)
    report_size(report, size.messages, size.bytes_per_message, size.with_vectors)


def report_ingest(report: Reporter, run: FleetRun, step_seconds: float) -> None:
    """Every step's lag, then the sustained rate (the fastest that held) and where it broke."""
    common = {"guilds": run.guilds, "shards": run.shards, "step_s": step_seconds}
    for step in run.steps:
        fields = {**common, **step.fields(), "held": step.held}
        report(BENCH, "ingest_lag_p99_s", step.lag_p99, "s", **fields)
        report(BENCH, "ingest_lag_p50_s", step.lag_p50, "s", **fields)
        report(BENCH, "messages_missing", step.sent - step.stored, "messages", **fields)
        report(BENCH, "db_queries_per_message", step.queries_per_message, "queries", **fields)
        misses = step.misses_per_message
        report(BENCH, "cache_misses_per_message", sum(misses.values()), "reads", **fields)
        for cache in ("consent", "consent_guild"):
            report(
                BENCH,
                "cache_misses_per_message",
                misses.get(cache, 0.0),
                "reads",
                cache=cache,
                **fields,
            )
    held = [step for step in run.steps if step.held]
    best = max(held, key=lambda step: step.achieved) if held else None
    sustained = {**common, "lag_target_s": LAG_TARGET_S}
    if best is not None:
        sustained["guilds_spoke"] = best.guilds_spoke
        report(BENCH, "sustained_messages_per_s", best.achieved, "msg/s", **sustained)
        report(BENCH, "sustained_lag_p99_s", best.lag_p99, "s", **sustained)
        report(BENCH, "sustained_messages_missing", best.sent - best.stored, "messages", **common)
    broke = next((step for step in run.steps if not step.held), None)
    tried = max((step.rate for step in run.steps), default=0.0)
    if broke is None:
        report(BENCH, "breaks_at_messages_per_s", None, "msg/s", broke=False, tried_up_to=tried)
    else:
        report(
            BENCH,
            "breaks_at_messages_per_s",
            broke.achieved,
            "msg/s",
            broke=True,
            lag_p99_s=round(broke.lag_p99, 2),
            asked_rate=broke.rate,
        )
    report(BENCH, "ready_seconds", run.ready_seconds, "s", **common)


def report_rss(report: Reporter, small: FleetRun, large: FleetRun) -> None:
    """Each shard's RSS (the largest shard): at READY, after the first step (the same messages
    at both sizes: the growth figure compares these) and, at the larger size, after the ramp."""
    for run in (small, large):
        phases = [("ready", run.rss_ready, 0), ("first_step", run.rss_first_step, _sent(run, 1))]
        if run is large:
            phases.append(("after_ramp", run.rss_after, _sent(run)))
        for phase, rss, sent in phases:
            report(
                BENCH,
                "rss_per_shard_mb",
                max(rss.values()),
                "MB",
                guilds=run.guilds,
                shards=run.shards,
                phase=phase,
                messages=sent,
            )
    ratio = max(large.rss_first_step.values()) / max(1.0, max(small.rss_first_step.values()))
    report(
        BENCH,
        "rss_per_shard_growth",
        ratio,
        "ratio",
        of=f"{large.guilds}/{small.guilds}",
        phase="first_step",
    )


def _sent(run: FleetRun, steps: int | None = None) -> int:
    return sum(step.sent for step in run.steps[:steps])


def report_day(report: Reporter, day: FleetDay, sampled: dict[str, Any]) -> None:
    """One fleet's day close: at 60/min, and the backlog at the default daily limit."""
    fields = {"guilds": day.guilds, "limit_rpm": LIMIT_RPM, "extrapolated": True, **sampled}
    active = max(1, day.active)
    report(BENCH, "day_close_wall_hours", day.wall_hours, "h", **fields)
    report(BENCH, "day_close_calls", day.calls, "calls", active_guilds=day.active, **fields)
    report(BENCH, "calls_per_guild_day", day.calls / active, "calls", **fields)
    report(
        BENCH, "tokens_per_guild_day", day.tokens / active, "tokens", tokenizer=TOKENIZER, **fields
    )
    report(BENCH, "day_close_cost_usd", day.cost_usd, "USD", priced="gemini-2.5-flash", **fields)
    report(BENCH, "day_close_needed_rpm", day.needed_rpm, "req/min", **fields)
    report(BENCH, "day_close_backlog_calls", day.backlog_calls, "calls/day", **fields)
    slow = {**fields, "limit_rpm": DEFAULT_DAILY_RPM}
    backlog = max(0, int(day.calls - DEFAULT_DAILY_RPM * 60 * 24))
    report(BENCH, "day_close_backlog_calls", backlog, "calls/day", **slow)


def report_size(report: Reporter, sampled: int, without: float, with_vectors: float) -> None:
    """Bytes per message measured on `sampled` messages; per million and per fleet, by rate."""
    for vectors, per in (("none", without), ("local", with_vectors)):
        common = {"vectors": vectors, "sampled_messages": sampled}
        report(BENCH, "db_bytes_per_message", per, "bytes", **common)
        report(
            BENCH, "db_mb_per_million_messages", per * 1e6 / _MB, "MB", extrapolated=True, **common
        )
        for fleet in FLEETS:
            kept = retained_messages(fleet)
            report(
                BENCH,
                "db_gb",
                per * kept / 1024 / _MB,
                "GB",
                guilds=fleet,
                retained_messages=kept,
                extrapolated=True,
                **common,
            )
