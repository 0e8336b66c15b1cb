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
check every target of docs/performance.md ("bench": "targets", listed in bench/targets.py)
and give the total run time. Each bench's full and quick sizes are in bench/sizes.py.
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
    reply_e2e,
    scale,
)
from bench.database import BenchServer, bench_server
from bench.ingest import paced, throughput
from bench.report import Reporter
from bench.sizes import FULL, QUICK
from bench.targets import TARGETS, check_targets
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
