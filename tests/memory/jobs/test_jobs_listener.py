"""The job consumer's LISTEN health probe: no spurious restart after start (the first probe
used to be sent before LISTEN and stopped every worker ~30 s in with an empty cause), and a
listener that is really lost is named in the log and the consumer starts over."""

from __future__ import annotations

import logging
from datetime import date

import asyncpg
import pytest

from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.jobs import JobHandlers, JobWorker, WorkerConfig
from tests.memory.jobs.test_jobs import NOW
from tests.support import eventually

CONFIG = WorkerConfig(sweep_seconds=3600, heartbeat_timeout_seconds=2, listener_probe_seconds=0.5)


def _worker(pool: asyncpg.Pool) -> JobWorker:
    async def close_day(guild_id: int, day: date) -> None:
        return None

    async def retention() -> None:
        return None

    return JobWorker(
        pool,
        JobHandlers(close_day=close_day, retention=retention),
        CONFIG,
        clock=FixedClock(NOW),
        telemetry=Telemetry(),
    )


def _stopped_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "consumer stopped" in r.getMessage()]


async def test_a_fresh_worker_keeps_its_consumer_past_the_first_probes(
    db_pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memory.jobs")
    worker = _worker(db_pool)
    worker.start()
    try:
        # Several probe intervals and consumer wake-ups (dequeue every second) go by.
        await eventually(lambda: worker._manager and worker._manager.probes_answered >= 4, 30)
    finally:
        await worker.stop()
    assert worker.restarts == 0
    assert _stopped_lines(caplog) == []


async def test_a_lost_listener_is_named_and_the_consumer_starts_over(
    db_pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memory.jobs")
    worker = _worker(db_pool)
    worker.start()
    try:
        first = await eventually(
            lambda: (
                worker._manager if worker._manager and worker._manager.probes_answered else None
            ),
            30,
        )
        # Cut every LISTEN connection of this database: NOTIFYs go unheard from now on.
        await db_pool.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query ILIKE 'LISTEN%'"
        )
        await eventually(lambda: worker.restarts >= 1, 30)
        await eventually(
            lambda: (
                worker._manager is not None
                and worker._manager is not first
                and worker._manager.probes_answered
            ),
            30,
        )
    finally:
        await worker.stop()
    [line, *_] = _stopped_lines(caplog)
    # The cause is named by type (it used to read "stopped ()").
    assert line.startswith("job queue consumer stopped (ListenerLost: the job queue's LISTEN")
