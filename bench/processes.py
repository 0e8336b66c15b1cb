"""The processes bench: what a `memorybot run` and a `memorybot worker` hold in memory, idle
(docs/operations.md, "Measured sizes", quotes these figures).

    python -m bench --only processes [--write-docs]

For each size of `members`, a `memorybot run` started as an admin starts it (the settings'
defaults: one shard, the job worker in the process) against the fleet's fake Discord
(bench/fleet_gateway.py) serving one guild of that many members, on a database of its own;
its resident memory (VmRSS) `settle_seconds` after READY (the guild's row stored: discord.py
has read the GUILD_CREATE and every member in it). The RSS a member known to the bot costs is
the slope between the two largest sizes. Beside the smallest guild's run, once its RSS is read,
a `memorybot worker` is started and its RSS read `settle_seconds` after it said it takes jobs.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from bench.database import BenchServer
from bench.fleet_gateway import FleetProcess
from bench.fleet_procs import Children, fleet_env
from bench.report import Reporter

_log = logging.getLogger(__name__)

BENCH = "processes"
READY_TIMEOUT_S = 300.0  # discord.py reads 50,000 members in well under this on 2 cores
WORKER_STARTED = "worker started"


@dataclass
class Idle:
    """One `memorybot run` (and, when asked, a worker beside it) after it settled."""

    members: int
    run_mb: float
    ready_seconds: float
    others_mb: dict[str, float] = field(default_factory=dict)


async def run_in(
    server: BenchServer, report: Reporter, *, members: Sequence[int], settle_seconds: float
) -> None:
    """Every size of `members` in turn (the worker beside the smallest), then the figures."""
    sizes = sorted(members)
    measured: list[Idle] = []
    for size in sizes:
        async with server.database(f"processes_{size}") as dsn:
            worker = size == sizes[0]
            measured.append(await idle(dsn, size, settle_seconds, worker=worker))
    report_idle(report, measured, settle_seconds)


async def idle(dsn: str, members: int, settle_seconds: float, *, worker: bool) -> Idle:
    """Start `memorybot run` against one guild of `members` members, its RSS once READY and
    `settle_seconds` have passed; then (when `worker`) a worker beside it, read the same way
    (after the run's figure: jobs the worker took would have changed what the run holds)."""
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=1)
    try:
        with tempfile.TemporaryDirectory(prefix="processes-") as folder:
            async with FleetProcess([members]) as fake:
                env = fleet_env(dsn, fake.api_base, fake.gateway_url, Path(folder))
                async with Children(env, Path(folder)) as children:
                    began = time.perf_counter()
                    children.start("run", "run")
                    await _ready(pool, children, "run")
                    ready = time.perf_counter() - began
                    result = Idle(members, await _settled(children, "run", settle_seconds), ready)
                    if worker:
                        children.start("worker", "worker")
                        await _ready(pool, children, "worker")
                        rss = await _settled(children, "worker", settle_seconds)
                        result.others_mb["worker"] = rss
                    return result
    finally:
        await pool.close()


async def _settled(children: Children, name: str, settle_seconds: float) -> float:
    """`name`'s RSS, MB, after `settle_seconds` of nothing to do."""
    await asyncio.sleep(settle_seconds)  # idle on purpose: the bench's subject
    dead = children.dead()
    if dead:
        raise RuntimeError(f"{dead[0]} stopped:\n{children.output(dead[0])}")
    return children.rss_mb(name)


async def _ready(pool: asyncpg.Pool, children: Children, name: str) -> None:
    """Until the run stored the guild's row, or the worker said it takes jobs; a process that
    died stops the bench with its output."""
    deadline = time.perf_counter() + READY_TIMEOUT_S
    while time.perf_counter() < deadline:
        dead = children.dead()
        if dead:
            raise RuntimeError(f"{dead[0]} stopped:\n{children.output(dead[0])}")
        if name == "worker":
            if WORKER_STARTED in children.output(name):
                return
        elif await pool.fetchval("SELECT count(*) FROM guilds") >= 1:
            return
        await asyncio.sleep(0.2)  # polling the processes, not a test
    raise TimeoutError(f"{name} did not get ready:\n{children.output(name)}")


def report_idle(report: Reporter, measured: Sequence[Idle], settle_seconds: float) -> None:
    """Each size's RSS, the slope between the two largest, and the worker's RSS; `settle_s`
    is how long each process was left idle before it was read."""
    settled = {"settle_s": settle_seconds}
    for run in measured:
        ready = f"READY {run.ready_seconds:.1f} s after start"
        note = f"RSS read {settle_seconds:g} s after READY ({ready})"
        report(
            BENCH, "run_idle_rss_mb", run.run_mb, "MB", members=run.members, note=note, **settled
        )
    if len(measured) >= 2:
        low, high = sorted(measured, key=lambda run: run.members)[-2:]
        per_member_kb = (high.run_mb - low.run_mb) * 1024 / (high.members - low.members)
        note = f"between {low.members:,} and {high.members:,} members (1 KB = 1024 bytes)"
        members = f"{low.members}-{high.members}"
        report(BENCH, "run_rss_per_member_kb", per_member_kb, "KB", members=members, note=note)
    for run in measured:
        for name, rss in run.others_mb.items():
            note = (
                f"RSS read {settle_seconds:g} s after it said it takes jobs, beside"
                f" `memorybot run` with one guild of {run.members} members"
            )
            report(BENCH, f"{name}_idle_rss_mb", rss, "MB", note=note, **settled)
