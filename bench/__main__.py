"""`python -m bench` (and `make bench`): every benchmark, one server, JSON lines on stdout.

    python -m bench [--only ingest,economy,latency,memory,scale,recall,locomo,quality,reply_e2e,
                             dead_endpoint,dashboard,embeddings,house,fleet,processes,
                             live_model] [--quick]
                    [--write-docs] [--gguf PATH]

`locomo` is the quality bench: LoCoMo's real conversations (bench/locomo.py), read from
../shared/data beside the checkout; without it, it says so and skips (under CI=true it fails).
`quality` is the template bench: chats generated from templates, a fast smoke test.

`live_model` runs only when asked for: it needs the live model server that `make test-llm`
installs (bench/live_model.py); `--gguf` runs it against another model file.

Each line is one figure: {"bench", "metric", "value", "unit", ...parameters}. The last lines
check every target of docs/performance.md ("bench": "targets") and give the total run time.
`--quick` runs every benchmark at a tiny size (seconds; what the smoke test does).
`--write-docs` keeps the run's figures in docs/figures/<bench>.jsonl (and, for `house`, redraws
docs/design.md's house) and rewrites the tables of
docs/performance.md from them (bench/docs.py): the page's figures are never typed by hand.
Uses DATABASE_URL when set (throwaway databases are created and dropped there), else an
embedded PostgreSQL in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import platform
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench import (
    dashboard,
    dead_endpoint,
    docs,
    economy,
    embeddings,
    fleet,
    house,
    house_drawing,
    latency,
    live_model,
    locomo,
    memory_footprint,
    processes,
    quality,
    recall,
    recall_data,
    reply_e2e,
    scale,
)
from bench.database import BenchServer, bench_server
from bench.ingest import paced, throughput
from bench.report import Reporter
from memory.core import event_loop

_log = logging.getLogger(__name__)

BENCHES = (
    "ingest",
    "economy",
    "latency",
    "memory",
    "scale",
    "recall",
    "locomo",
    "quality",
    "reply_e2e",
    "dead_endpoint",
    "dashboard",
    "embeddings",
    "house",
    "fleet",
    "processes",
)
# Run only when named: they need something beyond the project's own dependencies.
ON_REQUEST = ("live_model",)

# Full sizes keep each benchmark under 10 minutes on 2 cores; quick sizes under a few seconds.
FULL: dict[str, dict[str, Any]] = {
    "ingest": {"messages": 50_000, "rate": 1000.0, "seconds": 5.0},
    "economy": {"members": 50, "messages_per_day": 500, "days": 7, "rates": (0.05, 0.02, 0.2)},
    "latency": {"members": 200, "messages_per_day": 1000, "latency": 0.05, "warm_requests": 2000},
    "memory": {
        "guilds": 100,
        "members_per_guild": 100,
        "messages_per_day": 300,
        "ascii_guilds": 10,
    },
    "scale": {"requested": 200, "warm_requests": 500, "max_members": 10_000, "scale_down": 1},
    # About 8 minutes on 2 cores, most of it filling the guild and re-indexing it.
    "recall": {"messages": 1_000_000, "members": 500, "days": 365, "repeats": 10},
    # About 2 minutes: five conversations, every question, with the local vectors and without.
    "locomo": {"every": 1, "without_vectors": True},
    # About 20 s; `python -m bench.quality --large` for a bigger chat.
    "quality": {"members": 5, "sessions": 30, "days": 150, "per_kind": 10},
    # About 20 s: 100 members one at a time (twice), then 100 at once (warm, then 100 cold).
    "reply_e2e": {"members": 100, "history": 1000, "rounds": 2},
    "dead_endpoint": {"replies": 20},
    # About 2 minutes on 2 cores, most of it filling the guild with a million messages.
    "dashboard": {"messages": 1_000_000, "members": 500, "days": 30, "repeats": 20},
    # A few minutes on 2 cores: 60,000 stored messages embedded as an import does, and the
    # sentence encoder (when installed) on 200 messages; LoCoMo-dev's turns ranked for its
    # questions (the sentence encoder's two conversations take about a minute).
    "embeddings": {
        "messages": 20_000,
        "stored": 60_000,
        "minilm_messages": 200,
        "locomo_conversations": 5,
        "minilm_conversations": 2,
    },
    "live_model": {},
    "house": {},
    # About 10 minutes on 2 cores: 10,000 guilds in two shard processes (`--guilds` to change).
    "fleet": {
        "guilds": 10_000,
        "small_guilds": 1_000,
        "shards": 2,
        "rates": (250.0, 500.0, 1000.0, 2000.0, 4000.0),
        "step_seconds": 10.0,
        "day_volumes": (1, 10, 100, 1000, 10_000),
        "size_guilds": 10,
        "size_messages_per_day": 500,
    },
    # About 2 minutes: `memorybot run` idle with one guild of each size, a worker beside it.
    "processes": {"members": (10, 10_000, 50_000), "settle_seconds": 20.0},
}
QUICK: dict[str, dict[str, Any]] = {
    "ingest": {"messages": 500, "rate": 500.0, "seconds": 0.3},
    "economy": {"members": 6, "messages_per_day": 30, "days": 2, "rates": (0.05, 0.2)},
    "latency": {
        "members": 8,
        "messages_per_day": 30,
        "latency": 0.01,
        "warm_requests": 40,
        "concurrent": 20,
        "cold_members": 3,
    },
    "memory": {"guilds": 2, "members_per_guild": 10, "messages_per_day": 20, "ascii_guilds": 1},
    "scale": {
        "sweeps": ["guilds"],
        "requested": 10,
        "warm_requests": 20,
        "max_members": 200,
        "scale_down": 4,
    },
    "recall": {"messages": 2000, "members": 30, "days": 30, "repeats": 2, "summaries_per_day": 3},
    "locomo": {"conversations": 1, "every": 25},
    "quality": {"members": 3, "sessions": 6, "days": 20, "per_kind": 2},
    "reply_e2e": {"members": 4, "history": 20, "rounds": 2},
    "dead_endpoint": {"replies": 3},
    "dashboard": {"messages": 2000, "members": 30, "days": 30, "repeats": 2},
    "embeddings": {
        "messages": 300,
        "stored": 1000,
        "minilm_messages": 20,
        "locomo_conversations": 1,
        "minilm_conversations": 0,
    },
    "live_model": {},
    "house": {},
    "fleet": {
        "guilds": 40,
        "small_guilds": 20,
        "shards": 2,
        "rates": (50.0, 100.0),
        "step_seconds": 1.0,
        "day_volumes": (1, 10, 50),
        "size_guilds": 1,
        "size_messages_per_day": 50,
    },
    "processes": {"members": (2, 200), "settle_seconds": 0.5},
}


async def run_ingest(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    """bench/ingest.py's two phases, reported as figures."""
    async with server.database("ingest") as dsn:
        fast = await throughput(dsn, sizes["messages"], 500, 0.5)
        steady = await paced(dsn, sizes["rate"], sizes["seconds"], 500, 0.5)
    common = {"messages": fast["messages"], "batch_size": fast["batch_size"]}
    report("ingest", "messages_per_s", fast["messages_per_s"], "msg/s", target=10_000, **common)
    report("ingest", "flush_latency_p99_ms", fast["flush_latency_ms_p99"], "ms", **common)
    report("ingest", "stored", fast["stored"], "messages", **common)
    common = {"rate": sizes["rate"], "seconds": sizes["seconds"]}
    report("ingest", "loop_lag_p99_ms", steady["loop_lag_ms_p99"], "ms", target=5, **common)
    report("ingest", "loop_lag_p50_ms", steady["loop_lag_ms_p50"], "ms", **common)
    report("ingest", "loop_lag_max_ms", steady["loop_lag_ms_max"], "ms", **common)
    report("ingest", "achieved_rate", steady["achieved_rate"], "msg/s", **common)
    report("ingest", "max_queue_depth", steady["max_queue_depth"], "messages", **common)


async def run_economy(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    options = {key: value for key, value in sizes.items() if key != "rates"}
    for rate in sizes["rates"]:
        await economy.run_in(server, report, request_rate=rate, **options)


async def run_latency(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await latency.run_in(server, report, **sizes)


async def run_memory(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    """The 10,000-member figure, then the same chat without emoji/accents on fewer guilds
    (CPython stores a string with any emoji at 4 bytes per character)."""
    options = {key: value for key, value in sizes.items() if key != "ascii_guilds"}
    await memory_footprint.run_in(server, report, **options)
    options["guilds"] = sizes["ascii_guilds"]
    await memory_footprint.run_in(server, report, ascii_only=True, **options)


async def run_scale(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await scale.run(server, report, **sizes)


async def run_recall(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await recall.run_in(server, report, **sizes)


async def run_locomo(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await locomo.run_all(server, report, **sizes)


async def run_quality(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await quality.run_splits(server, report, **sizes)


async def run_reply_e2e(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await reply_e2e.run_in(server, report, **sizes)


async def run_dead_endpoint(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await dead_endpoint.run_in(server, report, **sizes)


async def run_dashboard(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await dashboard.run_in(server, report, **sizes)


async def run_embeddings(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    await embeddings.run_in(server, report, **sizes)


async def run_live_model(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    """The CLI runs in its own processes, each with its embedded database (not `server`)."""
    await asyncio.to_thread(live_model.run_in_temp, report, sizes.get("gguf"))


async def run_house(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    """Read from the source's imports: no database."""
    house.run(report)


async def run_fleet(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    """Shard processes of its own against the fleet's fake Discord (bench/fleet.py)."""
    await fleet.run_in(server, report, **sizes)


async def run_processes(server: BenchServer, report: Reporter, sizes: dict[str, Any]) -> None:
    """`memorybot run` and `memorybot worker` idle, their RSS (bench/processes.py)."""
    await processes.run_in(server, report, **sizes)


RUNNERS: dict[str, Callable[[BenchServer, Reporter, dict[str, Any]], Awaitable[None]]] = {
    "ingest": run_ingest,
    "economy": run_economy,
    "latency": run_latency,
    "memory": run_memory,
    "scale": run_scale,
    "recall": run_recall,
    "locomo": run_locomo,
    "quality": run_quality,
    "reply_e2e": run_reply_e2e,
    "dead_endpoint": run_dead_endpoint,
    "dashboard": run_dashboard,
    "embeddings": run_embeddings,
    "live_model": run_live_model,
    "house": run_house,
    "fleet": run_fleet,
    "processes": run_processes,
}

_BIG = {"channels": recall_data.CHANNELS}  # the 1M guild, not the busy one beside it
_TEXT_ONLY = {"scope": "guild", "config": "simple", "vectors": "none", **_BIG}
_HYBRID = {"scope": "guild", "config": "simple", "vectors": "local", **_BIG}
_BUSY = {"channels": recall.BUSY_CHANNELS}  # the second guild: a fifth the size, 50 channels
_LOCOMO = {"embedder": "local"}  # the default install's figures (not full text alone)
# (bench, metric, extra parameters to match, target, "max" or "min")
TARGETS: list[tuple[str, str, dict[str, Any], float, str]] = [
    ("ingest", "messages_per_s", {}, 10_000, "min"),
    ("ingest", "loop_lag_p99_ms", {}, 5, "max"),
    ("economy", "restart_calls_completed_days", {}, 0, "max"),
    # Wave 3: LLM tokens against the raw chat, at 5% and 20% of messages addressed to the bot.
    ("economy", "hierarchy_to_raw_token_ratio", {"request_rate": 0.05}, 3.0, "max"),
    ("economy", "hierarchy_to_raw_token_ratio", {"request_rate": 0.2}, 4.0, "max"),
    ("latency", "warm_p99_ms", {}, 1.0, "max"),
    ("latency", "concurrent_builds", {}, 1, "max"),
    ("latency", "restart_llm_calls", {}, 0, "max"),
    ("memory", "bytes_per_cached_member", {"ascii_only": False}, 6.5 * 1024, "max"),
    # Issue 43: what a reply prompt's memories carry on LoCoMo's real conversations (the
    # development half; the other half is measured outside the project).
    ("locomo", "evidence_all_in_memories", _LOCOMO | {"category": "all"}, 0.9, "min"),
    ("locomo", "evidence_all_in_memories", _LOCOMO | {"category": "multi_hop"}, 0.7, "min"),
    ("locomo", "evidence_all_in_memories", _LOCOMO | {"category": "temporal"}, 0.85, "min"),
    ("locomo", "answer_words_in_memories", _LOCOMO | {"category": "all"}, 0.6, "min"),
    ("locomo", "prompt_tokens_p50", _LOCOMO | {"category": "all"}, 2500, "max"),
    # Issue 26: what a reply prompt carries when a member asks about the past (issue 34: on
    # the split it was tuned on, and on the held-out split nothing was tuned to).
    ("quality", "evidence_in_prompt", {"kind": "all", "split": "tuned"}, 0.95, "min"),
    ("quality", "evidence_in_prompt", {"kind": "single_fact", "split": "tuned"}, 0.8, "min"),
    ("quality", "evidence_in_prompt", {"kind": "when", "split": "tuned"}, 0.8, "min"),
    ("quality", "evidence_in_prompt", {"kind": "across_sessions", "split": "tuned"}, 0.8, "min"),
    ("quality", "answer_words_in_prompt", {"kind": "all", "split": "tuned"}, 0.6, "min"),
    ("quality", "false_evidence", {"kind": "never_said", "split": "tuned"}, 0, "max"),
    ("quality", "prompt_tokens_p50", {"kind": "all", "split": "tuned"}, 2500, "max"),
    ("quality", "evidence_in_prompt", {"kind": "all", "split": "dev"}, 0.85, "min"),
    ("quality", "evidence_in_prompt", {"kind": "two_messages", "split": "dev"}, 0.7, "min"),
    ("quality", "answer_words_in_prompt", {"kind": "all", "split": "dev"}, 0.6, "min"),
    ("quality", "false_evidence", {"kind": "never_said", "split": "dev"}, 0, "max"),
    ("quality", "prompt_tokens_p50", {"kind": "all", "split": "dev"}, 2500, "max"),
    # Issue 28: episodes match the planted sessions.
    ("quality", "episode_boundaries_found", {"split": "tuned"}, 0.9, "min"),
    ("quality", "episode_spurious", {"split": "tuned"}, 0.1, "max"),
    # ... and "what did we talk about on <day>?" carries that day's episodes.
    ("quality", "evidence_in_prompt", {"kind": "talked_on_day", "split": "tuned"}, 0.8, "min"),
    ("reply_e2e", "reply_e2e_p99_ms", {"memories": "cold"}, 50, "max"),
    ("reply_e2e", "reply_e2e_p99_ms", {"memories": "warm"}, 50, "max"),
    ("reply_e2e", "reply_e2e_concurrent100_p99_ms", {"memories": "cold"}, 500, "max"),
    ("reply_e2e", "reply_e2e_concurrent100_p99_ms", {"memories": "warm"}, 500, "max"),
    ("dead_endpoint", "reply_overhead_max_ms", {}, 1500, "max"),
    # Issue 34: search on a 1M-message guild with expansion on (both text configurations).
    # Issue 43: ... with the local embedder's nearest messages fused in (the default install).
    ("recall", "search_p99_ms", _TEXT_ONLY, 100, "max"),
    ("recall", "search_p99_ms", _HYBRID, 100, "max"),
    ("recall", "search_p99_ms", {"scope": "guild", "config": "english", **_BIG}, 100, "max"),
    # ... and on a guild of many channels, a hit's exchange is its few lines (not 200 ms).
    ("recall", "search_p99_ms", {"scope": "guild", **_BUSY}, 100, "max"),
    ("recall", "search_p99_ms", {"scope": "reply", **_BUSY}, 100, "max"),
    # Issue 36: every page of the dashboard on a guild of a million messages, its first render
    # after a fresh start included (the slowest page's figures).
    ("dashboard", "page_render_p95_ms", {"page": "slowest"}, 200, "max"),
    ("dashboard", "page_render_cold_ms", {"page": "slowest"}, 200, "max"),
    # Issue 33: every check of the live-model run passes.
    ("live_model", "checks_failed", {}, 0, "max"),
    # Issue 46: a fleet of shard processes on one PostgreSQL: the ingest lag at the fastest rate
    # that held, nothing lost; RSS per shard flat from 1k to 10k guilds; a day of 10,000 guilds
    # closed within a day at 60 requests/min; a member served while their day is not closed.
    ("fleet", "sustained_lag_p99_s", {}, 2.0, "max"),
    ("fleet", "sustained_messages_missing", {}, 0, "max"),
    ("fleet", "rss_per_shard_growth", {}, 1.2, "max"),
    ("fleet", "day_close_wall_hours", {"guilds": 10_000}, 24.0, "max"),
    ("fleet", "sample_days_closed", {}, 1, "min"),
    ("fleet", "member_served_while_day_open", {}, 1, "min"),
    # Issue 35: no import runs back up the house, no circle.
    ("house", "arrows_up", {}, 0, "max"),
    ("house", "rooms_on_circles", {}, 0, "max"),
]


def check_targets(report: Reporter) -> None:
    """One line per target of the figures that were measured: its value and whether it held."""
    for bench, metric, params, target, kind in TARGETS:
        try:
            value = report.value(bench, metric, **params)
        except KeyError:
            continue
        met = value <= target if kind == "max" else value >= target
        case = {"case": ", ".join(f"{k}={v}" for k, v in params.items())} if params else {}
        report("targets", metric, value, "", of=bench, target=target, kind=kind, met=met, **case)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(BENCHES), help="comma-separated benches")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    parser.add_argument("--gguf", help="live_model: the GGUF to run the flows against")
    parser.add_argument("--guilds", type=int, help="fleet: how many guilds the shards serve")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="keep the figures in docs/figures/ and rewrite docs/performance.md's tables",
    )
    args = parser.parse_args(argv)
    if args.write_docs and args.quick:
        parser.error("--write-docs keeps full-size figures only (drop --quick)")
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(chosen) - set(BENCHES) - set(ON_REQUEST)
    if unknown:
        parser.error(f"unknown bench(es): {', '.join(sorted(unknown))}")
    sizes = QUICK if args.quick else FULL
    if args.gguf:
        sizes = {**sizes, "live_model": {"gguf": args.gguf}}
    if args.guilds:
        small = min(sizes["fleet"]["small_guilds"], args.guilds)
        fleet_sizes = {**sizes["fleet"], "guilds": args.guilds, "small_guilds": small}
        sizes = {**sizes, "fleet": fleet_sizes}
    report = Reporter()
    machine = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "database": "DATABASE_URL" if os.environ.get("DATABASE_URL") else "embedded",
    }
    report("run", "started", time.strftime("%Y-%m-%dT%H:%M:%S%z"), "", quick=args.quick, **machine)
    started = time.perf_counter()
    async with bench_server() as server:
        await run_all(server, report, chosen, sizes)
    report("run", "total_seconds", time.perf_counter() - started, "s", quick=args.quick)
    if args.write_docs:
        docs.write_docs(report.figures, chosen, TARGETS, (*BENCHES, *ON_REQUEST))
        if "house" in chosen:  # docs/design.md's drawing, from the figures just stored
            house_drawing.write(*docs.load()["house"])
    return 0


async def run_all(
    server: BenchServer,
    report: Reporter,
    chosen: list[str] | tuple[str, ...] = BENCHES,
    sizes: dict[str, dict[str, Any]] = FULL,
) -> None:
    """Run the chosen benchmarks on `server`, then check the targets."""
    for name in chosen:
        began = time.perf_counter()
        await RUNNERS[name](server, report, sizes[name])
        report("run", "bench_seconds", time.perf_counter() - began, "s", of=name)
    check_targets(report)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(event_loop.run(main()))
