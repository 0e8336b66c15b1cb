"""The worker's sweep (`due_days`) and a request (`day_states`) decide alike which past days
must be closed again: one SQL rule, NEEDS_CLOSE, for both."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from pgqueuer.domain.settings import db_settings

from db.jobs import close_day_key, due_days, ensure_job_queue
from db.messages import insert_messages, mark_deleted
from db.summaries import day_states
from tests.support import chat_message

G = 990
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)
TODAY = NOW.date()


async def _store(
    pool: asyncpg.Pool, day: date, n: int, max_id: int | None, **flags: object
) -> None:
    await pool.execute(
        "INSERT INTO summary_days (guild_id, day, message_count, max_message_id, stale,"
        " retry_after) VALUES ($1, $2, $3, $4, $5, $6)",
        G,
        day,
        n,
        max_id,
        bool(flags.get("stale", False)),
        flags.get("retry_after"),
    )


async def test_sweep_and_request_agree_on_every_kind_of_day(db_pool: asyncpg.Pool) -> None:
    days = [TODAY - timedelta(days=k) for k in range(1, 8)]
    ids = iter(range(5_000, 6_000))

    async def say(day: date, count: int = 1) -> list[int]:
        at = datetime(day.year, day.month, day.day, 10, tzinfo=UTC)
        made = [next(ids) for _ in range(count)]
        await insert_messages(
            db_pool, [chat_message(i, "hello", guild_id=G, created_at=at) for i in made]
        )
        return made

    never_stored, matching, changed, stale, deleted, degraded, quiet = days
    await say(never_stored)
    await _store(db_pool, matching, 2, (await say(matching, 2))[-1])
    await _store(db_pool, changed, 1, (await say(changed, 2))[0])
    await _store(db_pool, stale, 1, (await say(stale))[-1], stale=True)
    gone = await say(deleted)
    await _store(db_pool, deleted, 1, gone[-1])
    await mark_deleted(db_pool, G, gone)  # every message of the day deleted: stale, none left
    await _store(
        db_pool, degraded, 1, (await say(degraded))[-1], retry_after=NOW - timedelta(hours=1)
    )
    await _store(db_pool, quiet, 0, None)  # nothing said, "nothing to say" stored

    start = datetime.combine(days[-1], datetime.min.time(), UTC)
    end = datetime.combine(TODAY, datetime.min.time(), UTC)
    states = await day_states(db_pool, G, days, "UTC", start, end)
    swept = await due_days(
        db_pool, now=NOW, lookback=timedelta(days=8), default_timezone="UTC", limit=100
    )
    by_request = {day for day, state in states.items() if not state.fresh}
    assert {day for guild, day in swept if guild == G} == by_request
    assert by_request == {never_stored, changed, stale, deleted, degraded}


async def test_the_sweep_reads_the_queue_table_pgqueuer_was_told_to_use(
    db_pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PGQUEUER_PREFIX (or PGQUEUER_SCHEMA, or a bare QUEUE_TABLE) renames pgqueuer's tables:
    a day whose close is held as failed in the renamed table is left alone, as it would be in
    the default one."""
    monkeypatch.setenv("PGQUEUER_PREFIX", "mb_")
    db_settings.cache_clear()
    try:
        async with db_pool.acquire() as connection:
            await ensure_job_queue(connection)  # installs mb_pgqueuer and its siblings
        yesterday = TODAY - timedelta(days=1)
        at = datetime(yesterday.year, yesterday.month, yesterday.day, 10, tzinfo=UTC)
        await insert_messages(db_pool, [chat_message(1, "hi", guild_id=G, created_at=at)])
        sweep: dict[str, Any] = {
            "now": NOW,
            "lookback": timedelta(days=8),
            "default_timezone": "UTC",
            "limit": 9,
        }
        assert (G, yesterday) in await due_days(db_pool, **sweep)
        await db_pool.execute(
            "INSERT INTO mb_pgqueuer (priority, entrypoint, status, dedupe_key, updated)"
            " VALUES (0, 'close_day', 'failed', $1, now())",
            close_day_key(G, yesterday),
        )
        assert (G, yesterday) not in await due_days(db_pool, **sweep)
    finally:
        monkeypatch.delenv("PGQUEUER_PREFIX")
        db_settings.cache_clear()
