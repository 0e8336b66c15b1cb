"""The processes bench reads what real processes hold: a `memorybot run` that knows more
members holds more, a worker beside it is measured too, and the per-member slope is taken
between the two largest guilds. (The tiny run of every bench is in test_bench_smoke.py.)"""

from __future__ import annotations

import pytest

from bench import processes
from bench.database import BenchServer
from bench.report import Reporter
from db.embedded import EmbeddedPostgres

# A Python process that imported discord.py and the bot holds at least this much.
PROCESS_FLOOR_MB = 30.0


async def test_a_run_knowing_more_members_holds_more(pg_server: EmbeddedPostgres) -> None:
    server = BenchServer(pg_server.uri())
    report = Reporter()
    try:
        await processes.run_in(server, report, members=(2, 10_000), settle_seconds=0.0)
    finally:
        await server.aclose()
    small = report.value("processes", "run_idle_rss_mb", members=2)
    large = report.value("processes", "run_idle_rss_mb", members=10_000)
    assert small > PROCESS_FLOOR_MB
    assert large - small > 10_000 / 1024  # discord.py keeps over 1 KB a member
    assert report.value("processes", "worker_idle_rss_mb") > PROCESS_FLOOR_MB
    slope = report.value("processes", "run_rss_per_member_kb", members="2-10000")
    assert slope == pytest.approx((large - small) * 1024 / 9998, abs=0.05)  # figures are rounded


def test_the_slope_is_taken_between_the_two_largest_guilds() -> None:
    report = Reporter()
    measured = [
        processes.Idle(10, 73.0, 1.0, {"worker": 53.0}),
        processes.Idle(10_000, 90.0, 1.0),
        processes.Idle(50_000, 164.0, 2.0),
    ]
    processes.report_idle(report, measured, 20.0)
    slope = report.value("processes", "run_rss_per_member_kb", members="10000-50000")
    assert slope == pytest.approx(74 * 1024 / 40_000, abs=0.01)
    assert report.value("processes", "worker_idle_rss_mb") == 53.0
    assert report.value("processes", "run_idle_rss_mb", members=10) == 73.0
