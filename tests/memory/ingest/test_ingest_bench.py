"""bench/ingest.py keeps running: both phases store every message and report their figures."""

from __future__ import annotations

from bench.ingest import paced, throughput


async def test_bench_phases_store_everything_they_submit(database_dsn: str) -> None:
    fast = await throughput(database_dsn, messages=300, batch_size=100, flush_seconds=0.05)
    assert fast["stored"] == 300 and fast["messages_per_s"] > 0 and fast["batches"] == 3
    steady = await paced(database_dsn, rate=500, seconds=0.3, batch_size=50, flush_seconds=0.05)
    assert steady["stored"] == steady["messages"] > 100
    assert steady["loop_lag_ms_p99"] >= steady["loop_lag_ms_p50"] >= 0
