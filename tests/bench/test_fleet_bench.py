"""The fleet bench's figures can fail: a shard whose writer is slow breaks the lag target at
the first rate, and a day close needing more calls than the limit allows misses its day and
leaves a backlog. (The tiny run of every figure is in test_bench_smoke.py.)"""

from __future__ import annotations

from typing import Any

from bench import fleet
from bench.database import BenchServer
from bench.fleet_days import DaySample, fleet_day
from bench.fleet_ingest import LAG_TARGET_S, run_fleet
from bench.report import Reporter
from bench.targets import check_targets
from db.embedded import EmbeddedPostgres


def _targets(report: Reporter, metric: str) -> list[dict[str, Any]]:
    return [f for f in report.figures if f["bench"] == "targets" and f["metric"] == metric]


async def test_a_slow_writer_breaks_the_lag_at_the_first_rate(pg_server: EmbeddedPostgres) -> None:
    server = BenchServer(pg_server.uri())
    try:
        async with server.database("fleet_slow") as dsn:
            # The planted slow input: every shard's writer flushes only every 3 s.
            run = await run_fleet(
                dsn,
                guilds=6,
                shards=2,
                rates=(20.0, 40.0),
                step_seconds=1.0,
                shard_env={"INGEST_FLUSH_SECONDS": "3"},
            )
    finally:
        await server.aclose()
    assert len(run.steps) == 1  # the ramp stops at the rate that broke
    step = run.steps[0]
    assert step.stored == step.sent > 0  # late, not lost
    assert step.lag_p99 > LAG_TARGET_S
    assert not step.held
    report = Reporter()
    fleet.report_ingest(report, run, 1.0)
    assert report.value("fleet", "breaks_at_messages_per_s") > 0
    assert report.value("fleet", "ingest_lag_p99_s", rate=20.0) > LAG_TARGET_S
    assert not [f for f in report.figures if f["metric"] == "sustained_messages_per_s"]
    assert set(run.rss_ready) == {"shard0", "shard1"}
    assert all(rss > 0 for rss in run.rss_after.values())


def test_a_day_needing_more_calls_than_the_limit_misses_it_and_leaves_a_backlog() -> None:
    # Samples as if each guild-day took 40 calls: 10,000 guilds then need 200,000 a day.
    heavy = [
        DaySample(messages=n, calls=40, input_tokens=n * 20, output_tokens=n * 5)
        for n in (1, 10, 100)
    ]
    light = [
        DaySample(messages=n, calls=1, input_tokens=n * 20, output_tokens=n * 5)
        for n in (1, 10, 100)
    ]
    for samples, met in ((light, True), (heavy, False)):
        report = Reporter()
        fleet.report_day(report, fleet_day(10_000, samples), "1/10/100")
        check_targets(report)
        (wall,) = _targets(report, "day_close_wall_hours")
        assert wall["met"] is met
        backlog = report.value("fleet", "day_close_backlog_calls", limit_rpm=60.0)
        assert (backlog == 0) is met
