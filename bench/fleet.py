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
from bench.fleet_days import PRICED_MODEL, FleetDay, fleet_day, sample_days
from bench.fleet_ingest import LAG_TARGET_S, FleetRun, run_fleet
from bench.fleet_size import RETENTION_DAYS, measure, retained_messages
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
    sampled = "/".join(str(s.messages) for s in samples)
    closed = sum(s.closed for s in samples) / max(1, len(samples))
    note = f"sampled guild-days of {sampled} messages, closed through the worker's path"
    report(BENCH, "sample_days_closed", closed, "fraction", note=note)
    for fleet in FLEETS:
        report_day(report, fleet_day(fleet, samples, LIMIT_RPM), sampled)
    served = meanwhile.fallback or "a built context"
    note = f"model answers in 30 s; served {served} ({'+'.join(meanwhile.sources) or 'empty'})"
    report(BENCH, "member_served_while_day_open", int(meanwhile.served), "bool", note=note)
    report(BENCH, "member_served_while_day_open_ms", meanwhile.elapsed_ms, "ms", note=note)
    async with server.pool("fleet_size") as pool:
        size = await measure(pool, guilds=size_guilds, messages_per_day=size_messages_per_day)
    report_size(report, size.messages, size.bytes_per_message, size.with_vectors)


def report_ingest(report: Reporter, run: FleetRun, step_seconds: float) -> None:
    """Every step's lag, then the sustained rate (the fastest that held) and where it broke.
    The database's reads per message are the shards' cache misses (every one a consent read
    today) and every process's transactions (the worker's and the embedder's included)."""
    common = {"guilds": run.guilds, "shards": run.shards}
    for step in run.steps:
        fields = {**common, **step.fields(), "held": step.held}
        report(BENCH, "ingest_lag_p99_s", step.lag_p99, "s", **fields)
        report(BENCH, "ingest_lag_p50_s", step.lag_p50, "s", **fields)
        report(BENCH, "messages_missing", step.sent - step.stored, "messages", **fields)
        misses = sum(step.misses_per_message.values())
        report(BENCH, "cache_misses_per_message", misses, "reads", **fields)
        report(BENCH, "db_queries_per_message", step.queries_per_message, "queries", **fields)
    held = [step for step in run.steps if step.held]
    best = max(held, key=lambda step: step.achieved) if held else None
    if best is not None:
        note = (
            f"{best.guilds_spoke} guilds spoke in {step_seconds:g} s; lag p99 <= {LAG_TARGET_S:g} s"
        )
        report(BENCH, "sustained_messages_per_s", best.achieved, "msg/s", note=note, **common)
        report(BENCH, "sustained_lag_p99_s", best.lag_p99, "s", **common)
        report(BENCH, "sustained_messages_missing", best.sent - best.stored, "messages", **common)
    broke = next((step for step in run.steps if not step.held), None)
    if broke is None:
        tried = max((step.rate for step in run.steps), default=0.0)
        note = f"held up to {tried:g}/s asked: not broken on this machine"
        report(BENCH, "breaks_at_messages_per_s", None, "msg/s", note=note, **common)
    else:
        note = f"lag p99 {broke.lag_p99:.1f} s at {broke.rate:g}/s asked"
        report(BENCH, "breaks_at_messages_per_s", broke.achieved, "msg/s", note=note, **common)
    report(BENCH, "ready_seconds", run.ready_seconds, "s", **common)


def report_rss(report: Reporter, small: FleetRun, large: FleetRun) -> None:
    """Each shard's RSS (the largest shard): at READY, after the first step (the same messages
    at both sizes: the growth figure compares these) and, at the larger size, after the ramp."""
    for run in (small, large):
        phases = [("ready", run.rss_ready, 0), ("first_step", run.rss_first_step, _sent(run, 1))]
        if run is large:
            phases.append(("after_ramp", run.rss_after, _sent(run)))
        for phase, rss, sent in phases:
            fields = {"guilds": run.guilds, "shards": run.shards, "phase": phase}
            report(BENCH, "rss_per_shard_mb", max(rss.values()), "MB", messages=sent, **fields)
    ratio = max(large.rss_first_step.values()) / max(1.0, max(small.rss_first_step.values()))
    note = f"{large.guilds:,} guilds over {small.guilds:,}, after the same first step"
    report(BENCH, "rss_per_shard_growth", ratio, "ratio", phase="first_step", note=note)


def _sent(run: FleetRun, steps: int | None = None) -> int:
    return sum(step.sent for step in run.steps[:steps])


def report_day(report: Reporter, day: FleetDay, sampled: str) -> None:
    """One fleet's day close: at 60/min, and the backlog at the default daily limit."""
    fields: dict[str, Any] = {"guilds": day.guilds, "limit_rpm": LIMIT_RPM, "extrapolated": True}
    active = max(1, day.active)
    note = f"{day.active:,} guilds spoke; sampled guild-days of {sampled} messages"
    report(BENCH, "day_close_wall_hours", day.wall_hours, "h", note=note, **fields)
    report(BENCH, "day_close_calls", day.calls, "calls", **fields)
    report(BENCH, "calls_per_guild_day", day.calls / active, "calls", **fields)
    note = f"tokenizer {TOKENIZER}"
    report(BENCH, "tokens_per_guild_day", day.tokens / active, "tokens", note=note, **fields)
    note = f"priced as {PRICED_MODEL}"
    report(BENCH, "day_close_cost_usd", day.cost_usd, "USD", note=note, **fields)
    report(BENCH, "day_close_needed_rpm", day.needed_rpm, "req/min", **fields)
    report(BENCH, "day_close_backlog_calls", day.backlog_calls, "calls/day", **fields)
    slow = {**fields, "limit_rpm": DEFAULT_DAILY_RPM}
    backlog = max(0, int(day.calls - DEFAULT_DAILY_RPM * 60 * 24))
    note = "LLM_DAILY_REQUESTS_PER_MINUTE's default; the backlog grows by this every day"
    report(BENCH, "day_close_backlog_calls", backlog, "calls/day", note=note, **slow)


def report_size(report: Reporter, sampled: int, without: float, with_vectors: float) -> None:
    """Bytes per message measured on `sampled` messages; per million and per fleet, by rate."""
    for vectors, per in (("none", without), ("local", with_vectors)):
        note = f"measured on {sampled:,} messages"
        report(BENCH, "db_bytes_per_message", per, "bytes", vectors=vectors, note=note)
        report(
            BENCH,
            "db_mb_per_million_messages",
            per * 1e6 / _MB,
            "MB",
            vectors=vectors,
            extrapolated=True,
        )
        for fleet in FLEETS:
            kept = retained_messages(fleet)
            note = f"{kept:,} messages kept ({RETENTION_DAYS} days)"
            report(
                BENCH,
                "db_gb",
                per * kept / 1024 / _MB,
                "GB",
                guilds=fleet,
                vectors=vectors,
                extrapolated=True,
                note=note,
            )
