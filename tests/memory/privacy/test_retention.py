"""Retention deletes exactly the raw messages older than RETENTION_DAYS, nothing else."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg

from db.messages import insert_messages
from db.pool import create_pool
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage
from memory.core.telemetry import Telemetry
from memory.privacy._retention import MIN_RETENTION_DAYS, RetentionJob, run_retention
from tests.support import chat_message

NOW = datetime(2025, 6, 30, 12, 0, tzinfo=UTC)
G1, G2 = 100, 200


def _message(message_id: int, guild_id: int, age: timedelta) -> ChatMessage:
    return chat_message(
        message_id,
        f"message {message_id}",
        guild_id=guild_id,
        channel_id=guild_id + 1,
        author_id=7,
        created_at=NOW - age,
    )


async def _seed_derived_rows(db: asyncpg.Pool) -> dict[str, int]:
    """Facts, history, forgotten statements and summaries of the old days (must all survive)."""
    old_day = (NOW - timedelta(days=40)).date()
    await db.execute(
        "INSERT INTO user_facts (guild_id, user_id, blob, version) VALUES ($1, 7, 'Likes tea.', 1)",
        G1,
    )
    await db.execute(
        "INSERT INTO fact_history (guild_id, user_id, version, old_blob, new_blob, command,"
        " source_message_id, created_at) VALUES ($1, 7, 1, '', 'Likes tea.', 'remember', 1, $2)",
        G1,
        NOW - timedelta(days=40),
    )
    await db.execute(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement, created_at)"
        " VALUES ($1, 7, 'owns a cat', $2)",
        G1,
        NOW - timedelta(days=50),
    )
    await db.execute(
        "INSERT INTO summary_days (guild_id, day, message_count, max_message_id)"
        " VALUES ($1, $2, 2, 2)",
        G1,
        old_day,
    )
    await db.execute(
        "INSERT INTO daily_summaries (guild_id, day, user_id, summary)"
        " VALUES ($1, $2, 7, 'Chatty.')",
        G1,
        old_day,
    )
    await db.execute(
        "INSERT INTO historical_summaries (guild_id, user_id, end_day, summary, source_hash)"
        " VALUES ($1, 7, $2, 'A busy week.', 'h')",
        G1,
        old_day,
    )
    await db.execute(
        "INSERT INTO merged_contexts (guild_id, user_id, context, content_hash)"
        " VALUES ($1, 7, '<memory/>', 'h')",
        G1,
    )
    return await _derived_counts(db)


async def _derived_counts(db: asyncpg.Pool) -> dict[str, int]:
    tables = (
        "user_facts",
        "fact_history",
        "forgotten_statements",
        "summary_days",
        "daily_summaries",
        "historical_summaries",
        "merged_contexts",
    )
    return {table: await db.fetchval(f"SELECT count(*) FROM {table}") for table in tables}


async def _message_ids(db: asyncpg.Pool) -> set[int]:
    return {row["message_id"] for row in await db.fetch("SELECT message_id FROM messages")}


async def test_deletes_exactly_the_old_messages_and_keeps_facts_and_summaries(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    cutoff_age = timedelta(days=30)
    old = [
        _message(1, G1, timedelta(days=40)),
        _message(2, G1, cutoff_age + timedelta(seconds=1)),
        _message(3, G2, timedelta(days=365)),
    ]
    kept = [
        _message(4, G1, cutoff_age),  # exactly at the cutoff: not older, so it stays
        _message(5, G1, cutoff_age - timedelta(seconds=1)),
        _message(6, G2, timedelta(days=1)),
        _message(7, G2, timedelta(0)),
    ]
    await insert_messages(db_pool, old + kept)
    derived = await _seed_derived_rows(db_pool)

    report = await run_retention(
        db_pool, retention_days=30, clock=FixedClock(NOW), telemetry=telemetry
    )

    assert await _message_ids(db_pool) == {4, 5, 6, 7}
    assert await _derived_counts(db_pool) == derived
    assert report.deleted == 3 and report.by_guild == {G1: 2, G2: 1}
    assert report.cutoff == NOW - cutoff_age
    [event] = telemetry.recent("retention")
    assert event["outcome"] == "ok" and event["count"] == 3 and event["retention_days"] == 30


async def test_deletes_in_bounded_batches_oldest_first(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    old = [_message(i, G1, timedelta(days=31, minutes=i)) for i in range(1, 251)]
    await insert_messages(db_pool, [*old, _message(1000, G1, timedelta(days=2))])

    report = await run_retention(
        db_pool, retention_days=30, clock=FixedClock(NOW), telemetry=telemetry, batch_size=100
    )

    assert report.deleted == 250
    assert report.batches == 3  # 100 + 100 + 50: no statement touched more than 100 rows
    assert await _message_ids(db_pool) == {1000}
    assert telemetry.recent("retention")[0]["batches"] == 3


async def test_dry_run_counts_without_deleting(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    await insert_messages(
        db_pool, [_message(1, G1, timedelta(days=45)), _message(2, G1, timedelta(0))]
    )
    report = await run_retention(
        db_pool, retention_days=30, clock=FixedClock(NOW), telemetry=telemetry, dry_run=True
    )
    assert report.deleted == 1 and report.dry_run
    assert "would delete 1 message older" in report.describe()
    assert await _message_ids(db_pool) == {1, 2}


async def test_short_retention_never_reaches_the_days_summaries_still_read(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await insert_messages(
        db_pool,
        [
            _message(1, G1, timedelta(days=2)),  # day 3: history still reads it
            _message(2, G1, timedelta(days=MIN_RETENTION_DAYS, hours=1)),
        ],
    )
    report = await run_retention(
        db_pool, retention_days=1, clock=FixedClock(NOW), telemetry=telemetry
    )
    assert report.retention_days == MIN_RETENTION_DAYS
    assert await _message_ids(db_pool) == {1}


async def test_background_job_runs_on_schedule_and_stops(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    clock = FixedClock(NOW)
    await insert_messages(db_pool, [_message(1, G1, timedelta(days=40))])
    job = RetentionJob(
        db_pool,
        retention_days=30,
        clock=clock,
        telemetry=telemetry,
        interval=timedelta(milliseconds=20),
        first_delay=timedelta(0),
    )
    job.start()
    job.start()  # idempotent: still one loop
    try:
        for _ in range(200):
            if job.runs >= 1:
                break
            await asyncio.sleep(0.01)
        assert await _message_ids(db_pool) == set()
        # a message that ages past the cutoff later is caught by a later run
        await insert_messages(db_pool, [_message(2, G1, timedelta(days=1))])
        clock.advance(timedelta(days=40))
        runs = job.runs
        for _ in range(200):
            if job.runs > runs + 1:
                break
            await asyncio.sleep(0.01)
        assert await _message_ids(db_pool) == set()
    finally:
        await job.stop()
    assert not job.running
    # stopped means stopped: no retention loop is left on the event loop
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "memorybot-retention"]
    assert {e["outcome"] for e in telemetry.recent("retention")} == {"ok"}


async def test_a_failed_run_is_reported_and_the_job_keeps_going(
    database_dsn: str, telemetry: Telemetry
) -> None:
    pool = await create_pool(database_dsn)
    await pool.close()  # the database is gone for this job
    job = RetentionJob(pool, retention_days=30, clock=FixedClock(NOW), telemetry=telemetry)
    assert await job.run_once() is None
    assert await job.run_once() is None
    assert job.runs == 2
    errors = telemetry.recent("retention")
    assert [e["outcome"] for e in errors] == ["error", "error"]
    assert "closed" in errors[0]["error"]
