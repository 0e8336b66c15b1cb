"""Background work on the PostgreSQL job queue: each due guild-day is queued once, closed once
by whichever worker picks it, retried with backoff when it fails, and held (not retried on every
sweep forever) when it keeps failing."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import asyncpg

from db.messages import insert_messages, mark_deleted
from db.pool import create_pool
from memory.core.clock import FixedClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.jobs import JobHandlers, JobWorker, WorkerConfig
from memory.wiring import open_memory
from tests.support import chat_message, eventually

G, H = 970, 971
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)
TODAY = NOW.date()


def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, log_dir=tmp_path / "logs")


async def say(pool: asyncpg.Pool, guild: int, day: date, text: str, author: int = 5) -> None:
    at = datetime(day.year, day.month, day.day, 10, tzinfo=UTC)
    await insert_messages(
        pool, [chat_message(content=text, guild_id=guild, author_id=author, created_at=at)]
    )


async def _episode_jobs(pool: asyncpg.Pool) -> int:
    count: int = await pool.fetchval("SELECT count(*) FROM pgqueuer WHERE entrypoint = 'episodes'")
    return count


async def _embed_jobs(pool: asyncpg.Pool) -> int:
    count: int = await pool.fetchval("SELECT count(*) FROM pgqueuer WHERE entrypoint = 'embed'")
    return count


async def closed_days(pool: asyncpg.Pool) -> set[tuple[int, date]]:
    rows = await pool.fetch("SELECT guild_id, day FROM summary_days")
    return {(row["guild_id"], row["day"]) for row in rows}


async def job_rows(pool: asyncpg.Pool) -> list[asyncpg.Record]:
    return await pool.fetch("SELECT entrypoint, status, attempts, dedupe_key FROM pgqueuer")


async def test_the_sweep_queues_each_past_day_once_and_a_worker_closes_it(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    yesterday, before = TODAY - timedelta(days=1), TODAY - timedelta(days=2)
    await say(db_pool, G, yesterday, "I adopted a cat called Miso")
    await say(db_pool, G, before, "the climbing gym opened")
    await say(db_pool, H, yesterday, "ferry to Oslo tomorrow")
    await say(db_pool, G, TODAY, "today is still open")
    # The day the sweep's window starts in is only partly inside it: never "changed" for that.
    edge = NOW - timedelta(days=8) + timedelta(hours=1)
    await insert_messages(db_pool, [chat_message(content="old", guild_id=G, created_at=edge)])
    telemetry = Telemetry()
    async with open_memory(
        settings(tmp_path), clock=FixedClock(NOW), pool=db_pool, telemetry=telemetry
    ) as memory:
        # Three past guild-days and the first retention run; today is not closed yet.
        # (the sweep also queues each guild's episode summaries: not counted here; and the
        # local embedder's job for each guild with unembedded messages)
        queued = await memory.worker.sweep() - await _episode_jobs(db_pool)
        assert await _embed_jobs(db_pool) == 2
        assert queued - 2 == 4
        assert await memory.worker.sweep() == 0  # already queued: not twice
        memory.worker.start()
        expected = {(G, yesterday), (G, before), (H, yesterday)}
        await eventually(lambda: _closed(db_pool, expected), timeout=30)
        await eventually(lambda: _queue_empty(db_pool), timeout=30)
        assert await memory.worker.sweep() == 0  # closed days are not due again
    jobs = Counter(e["job"] for e in telemetry.recent("job") if e["outcome"] == "ok")
    jobs.pop("episodes", None)
    assert jobs == {"close_day": 3, "retention": 1, "embed": 2}
    closes = [e for e in telemetry.recent("daily_summary") if e["reason"] != "pass"]
    assert sorted((e["guild_id"], e["day"]) for e in closes) == sorted(
        (g, d.isoformat()) for g, d in expected
    )


async def test_two_workers_close_each_day_exactly_once(
    db_pool: asyncpg.Pool, database_dsn: str, tmp_path: Path
) -> None:
    days = [TODAY - timedelta(days=offset) for offset in range(1, 7)]
    for day in days:
        await say(db_pool, G, day, f"news of {day}")
    other_pool = await create_pool(database_dsn)
    first, second = Telemetry(), Telemetry()
    clock = FixedClock(NOW)
    try:
        async with (
            open_memory(settings(tmp_path), clock=clock, pool=db_pool, telemetry=first) as one,
            open_memory(settings(tmp_path), clock=clock, pool=other_pool, telemetry=second) as two,
        ):
            one.worker.start()
            two.worker.start()
            await eventually(lambda: _closed(db_pool, {(G, day) for day in days}), timeout=60)
            await eventually(lambda: _queue_empty(db_pool), timeout=30)
    finally:
        await other_pool.close()
    ran = [
        e["day"]
        for t in (first, second)
        for e in t.recent("job")
        if e["job"] == "close_day" and e["outcome"] == "ok"
    ]
    assert sorted(ran) == sorted(day.isoformat() for day in days)  # each once, by someone


async def test_a_failing_close_is_retried_with_backoff_then_held(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    flaky_day, broken_day = TODAY - timedelta(days=1), TODAY - timedelta(days=2)
    await say(db_pool, G, flaky_day, "flaky")
    await say(db_pool, G, broken_day, "broken")
    calls: Counter[date] = Counter()
    telemetry = Telemetry()
    async with open_memory(
        settings(tmp_path), clock=FixedClock(NOW), pool=db_pool, telemetry=telemetry
    ) as memory:

        async def close_day(guild_id: int, day: date) -> object:
            calls[day] += 1
            if day == broken_day or calls[day] == 1:
                raise RuntimeError(f"model overloaded ({day})")
            return await memory.manager.summarize_day(guild_id, day, force=False)

        async def retention() -> None:
            return None

        worker = JobWorker(
            db_pool,
            JobHandlers(close_day=close_day, retention=retention),
            WorkerConfig(
                max_attempts=3,
                sweep_seconds=3600,
                retry_initial_delay=timedelta(milliseconds=50),
            ),
            clock=memory.clock,
            telemetry=telemetry,
        )
        worker.start()
        try:
            await eventually(lambda: _closed(db_pool, {(G, flaky_day)}), timeout=30)

            async def held() -> bool:
                rows = await job_rows(db_pool)
                return any(r["status"] == "failed" for r in rows)

            await eventually(held, timeout=30)
            assert await worker.sweep() == 0  # the held day is left alone, not retried forever
            [job] = await worker.queue.held()
            assert job.what == f"guild {G} day {broken_day.isoformat()}" and job.attempts == 3
            assert job.error == f"RuntimeError: model overloaded ({broken_day})"
        finally:
            await worker.stop()
    assert calls[flaky_day] == 2
    assert calls[broken_day] == 3  # JOB_MAX_ATTEMPTS=3: three runs in all, then held
    assert (G, broken_day) not in await closed_days(db_pool)
    errors = [e for e in telemetry.recent("job") if e["outcome"] == "error"]
    assert {e["attempt"] for e in errors if e["day"] == broken_day.isoformat()} == {1, 2, 3}


async def test_job_max_attempts_one_makes_exactly_one_attempt(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    broken_day = TODAY - timedelta(days=2)
    await say(db_pool, G, broken_day, "broken")
    calls: Counter[date] = Counter()
    telemetry = Telemetry()
    config = Settings(
        _env_file=None, log_dir=tmp_path / "logs", job_max_attempts=1, job_sweep_seconds=3600
    )

    async def close_day(guild_id: int, day: date) -> object:
        calls[day] += 1
        raise RuntimeError("model overloaded")

    async def retention() -> None:
        return None

    worker = JobWorker(
        db_pool,
        JobHandlers(close_day=close_day, retention=retention),
        WorkerConfig.from_settings(config),
        clock=FixedClock(NOW),
        telemetry=telemetry,
    )
    worker.start()
    try:

        async def held() -> bool:
            return bool(await worker.queue.held())

        await eventually(held, timeout=30)
        [job] = await worker.queue.held()
    finally:
        await worker.stop()
    assert calls[broken_day] == 1 and job.attempts == 1
    errors = [e for e in telemetry.recent("job") if e["outcome"] == "error"]
    assert [e["attempt"] for e in errors if e["day"] == broken_day.isoformat()] == [1]


async def _closed(pool: asyncpg.Pool, expected: set[tuple[int, date]]) -> bool:
    return expected <= await closed_days(pool)


async def _queue_empty(pool: asyncpg.Pool) -> bool:
    return not [r for r in await job_rows(pool) if r["status"] in ("queued", "picked")]


async def test_closing_yesterday_builds_the_asked_members_histories_in_one_call(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    alice = 5
    for offset, text in enumerate(["I moved to Lisbon", "I work as a nurse", "I play cello"], 1):
        await say(db_pool, G, TODAY - timedelta(days=offset), text)
    telemetry = Telemetry()
    async with open_memory(
        settings(tmp_path), clock=FixedClock(NOW), pool=db_pool, telemetry=telemetry
    ) as memory:
        await memory.manager.wait_for_context(G, alice)  # asked about today
        # A late message makes yesterday stale; the worker closes it again.
        await say(db_pool, G, TODAY - timedelta(days=1), "I also adopted a cat")
        histories_before = len(telemetry.recent("historical_summary"))
        memory.worker.start()
        await eventually(lambda: _job_done(telemetry, "close_day"), timeout=30)
        batched = telemetry.recent("historical_summary")[histories_before:]
        assert [e["members"] for e in batched] == [1]  # alice's, built by the worker
        report = await memory.manager.wait_for_context(G, alice)
    assert "cat" in (report.text or "")
    assert len(telemetry.recent("historical_summary")) == histories_before + 1  # none on request


def _job_done(telemetry: Telemetry, job: str) -> bool:
    return any(e["job"] == job and e["outcome"] == "ok" for e in telemetry.recent("job"))


async def _summary_of(pool: asyncpg.Pool, guild: int, day: date) -> str:
    rows = await pool.fetch(
        "SELECT summary FROM daily_summaries WHERE guild_id = $1 AND day = $2", guild, day
    )
    return " ".join(row["summary"] for row in rows)


async def test_a_message_deleted_weeks_later_leaves_its_days_summary(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """The sweep reads a week of messages; a day further back whose message was deleted since
    it was closed is found by its stale mark, and closed again without the deleted words
    (here every message of the day is gone)."""
    old = TODAY - timedelta(days=20)
    at = datetime(old.year, old.month, old.day, 10, tzinfo=UTC)
    secret = chat_message(content="my door code is 4821", guild_id=G, author_id=5, created_at=at)
    await insert_messages(db_pool, [secret])
    async with open_memory(
        settings(tmp_path), clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as memory:
        await memory.manager.summarize_day(G, old)
        assert "4821" in await _summary_of(db_pool, G, old)
        await mark_deleted(db_pool, G, [secret.message_id])
        assert await memory.worker.sweep() >= 1
        memory.worker.start()
        await eventually(lambda: _no_longer_said(db_pool, old), timeout=30)
        await eventually(lambda: _queue_empty(db_pool), timeout=30)
        assert await memory.worker.sweep() == 0  # closed again: not due any more


async def _no_longer_said(pool: asyncpg.Pool, day: date) -> bool:
    stale = await pool.fetchval(
        "SELECT stale FROM summary_days WHERE guild_id = $1 AND day = $2", G, day
    )
    return stale is False and "4821" not in await _summary_of(pool, G, day)
