"""The batched writer: size/time flushes, ordering of edits and deletes, outages, shutdown."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime
from typing import Any, TypeVar

import asyncpg
import pytest

from db.embedded import EmbeddedPostgres
from db.members import get_member
from db.messages import get_message
from db.pool import create_pool
from memory.core.models import ChatMessage, Member
from memory.core.telemetry import Telemetry
from memory.ingest import BatchedWriter, is_transient
from tests.support import chat_message, eventually

T = TypeVar("T")

GUILD = 10


def _message(message_id: int, content: str = "hello", **extra: Any) -> ChatMessage:
    fields: dict[str, Any] = {
        "guild_id": GUILD,
        "channel_id": 20,
        "author_id": 30,
        "created_at": datetime(2026, 11, 1, 23, 30, tzinfo=UTC),
        **extra,
    }
    return chat_message(message_id, content, **fields)


async def _count(pool: asyncpg.Pool) -> int:
    count: int = await pool.fetchval("SELECT count(*) FROM messages")
    return count


async def _eventually(
    probe: Callable[[], Awaitable[T]],
    timeout: float = 5.0,  # noqa: ASYNC109
) -> T:
    deadline = time.monotonic() + timeout
    while not (result := await probe()):
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)
    return result


@pytest.fixture
async def writer(db_pool: asyncpg.Pool, telemetry: Telemetry) -> AsyncIterator[BatchedWriter]:
    writer = BatchedWriter(
        db_pool, batch_size=10, flush_seconds=30, queue_max=1000, telemetry=telemetry
    )
    writer.start()
    yield writer
    await writer.close(grace_seconds=10)


async def test_full_batches_flush_without_waiting_for_the_interval(
    writer: BatchedWriter, db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    for i in range(1, 26):
        assert writer.submit(_message(i)) is True
    # two full batches go out at once; the last 5 wait for the (30 s) interval or a flush
    await _eventually(lambda: _has_count(db_pool, 20))
    assert await _count(db_pool) == 20
    await writer.flush()
    assert await _count(db_pool) == 25
    batches = telemetry.recent("ingest_batch")
    assert [event["size"] for event in batches] == [10, 10, 5]
    assert all("latency_ms" in event and "queue_depth" in event for event in batches)


async def _has_count(pool: asyncpg.Pool, expected: int) -> bool:
    return await _count(pool) >= expected


async def test_a_lone_message_is_written_after_the_interval(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    writer = BatchedWriter(db_pool, batch_size=500, flush_seconds=0.05, telemetry=telemetry)
    writer.start()
    try:
        writer.submit(_message(1))
        await _eventually(lambda: _has_count(db_pool, 1), timeout=2)
    finally:
        await writer.close()


async def test_edit_and_delete_queued_with_their_message_apply_in_order(
    writer: BatchedWriter, db_pool: asyncpg.Pool
) -> None:
    writer.submit_guild(GUILD, "Guild")
    writer.submit_member(Member(GUILD, 30, username="alice", nickname="Al"))
    writer.submit(_message(1, "first"))
    writer.submit_edit(_message(1, "first, edited", edited_at=datetime(2026, 11, 2, tzinfo=UTC)))
    writer.submit(_message(2, "secret"))
    writer.submit_delete(GUILD, 2)
    writer.submit_edit(_message(2, "edit after delete"))  # must not resurrect the text
    await writer.flush()
    edited = await get_message(db_pool, 1)
    assert edited is not None and edited.content == "first, edited"
    assert edited.edited_at == datetime(2026, 11, 2, tzinfo=UTC)
    deleted = await get_message(db_pool, 2)
    assert deleted is not None and deleted.deleted and deleted.content == ""
    member = await get_member(db_pool, GUILD, 30)
    assert member is not None and member.nickname == "Al"
    assert await db_pool.fetchval("SELECT name FROM guilds WHERE guild_id = $1", GUILD) == "Guild"


async def test_delete_marks_the_local_day_stale_in_the_guild_timezone(
    writer: BatchedWriter, db_pool: asyncpg.Pool
) -> None:
    # 23:30 UTC on Nov 1 is already Nov 2 in Berlin
    await db_pool.execute(
        "INSERT INTO guilds (guild_id, timezone) VALUES ($1, 'Europe/Berlin')", GUILD
    )
    for day in (date(2026, 11, 1), date(2026, 11, 2)):
        await db_pool.execute(
            "INSERT INTO summary_days (guild_id, day, message_count) VALUES ($1, $2, 1)", GUILD, day
        )
    writer.submit(_message(1))
    await writer.flush()
    writer.submit_delete(GUILD, 1)
    await writer.flush()
    stale = await db_pool.fetch("SELECT day, stale FROM summary_days ORDER BY day")
    assert [(r["day"], r["stale"]) for r in stale] == [
        (date(2026, 11, 1), False),
        (date(2026, 11, 2), True),
    ]


async def test_resubmitting_is_idempotent(writer: BatchedWriter, db_pool: asyncpg.Pool) -> None:
    for _ in range(3):
        writer.submit(_message(1))
        await writer.flush()
    assert await _count(db_pool) == 1


async def test_database_outage_delays_but_never_loses_messages(
    pg_server: EmbeddedPostgres, database_dsn: str, telemetry: Telemetry
) -> None:
    pool = await create_pool(database_dsn, min_size=1, max_size=2)
    writer = BatchedWriter(
        pool,
        batch_size=20,
        flush_seconds=0.05,
        telemetry=telemetry,
        backoff_initial=0.05,
        backoff_max=0.2,
        acquire_timeout=2,
    )
    writer.start()
    try:
        for i in range(1, 51):
            writer.submit(_message(i))
        await writer.flush()
        pg_server.stop()
        try:
            for i in range(51, 201):
                writer.submit(_message(i))  # no database: must not block or raise
                if i % 25 == 0:
                    await asyncio.sleep(0)  # let the writer try meanwhile
            await eventually(lambda: writer.failing_since is not None)  # it tried and failed
            assert writer.depth == 150
        finally:
            pg_server.start()
        await asyncio.wait_for(writer.flush(), 30)
        ids = await pool.fetch("SELECT message_id FROM messages ORDER BY message_id")
        assert [row["message_id"] for row in ids] == list(range(1, 201))
        assert any(e["outcome"] == "retry" for e in telemetry.recent("ingest_batch"))
        assert writer.failing_since is None
    finally:
        await writer.close(grace_seconds=10)
        await pool.close()


async def test_full_queue_is_reported_not_dropped(
    db_pool: asyncpg.Pool, telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    writer = BatchedWriter(
        db_pool, batch_size=100, flush_seconds=30, queue_max=10, telemetry=telemetry
    )
    # not started: nothing drains, as during a long outage
    accepted = [writer.submit(_message(i)) for i in range(1, 16)]
    assert accepted == [True] * 10 + [False] * 5
    assert writer.depth == 15
    assert "over its bound" in caplog.text
    assert len(telemetry.recent("ingest_overflow")) == 1  # once per episode, not per message
    writer.start()
    await writer.flush()
    assert await _count(db_pool) == 15
    await writer.close()


async def test_put_waits_for_room(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    writer = BatchedWriter(
        db_pool, batch_size=5, flush_seconds=0.01, queue_max=5, telemetry=telemetry
    )
    writer.start()
    try:
        for i in range(1, 41):
            await writer.put(_message(i))
            assert writer.depth <= 5
        await writer.flush()
        assert await _count(db_pool) == 40
    finally:
        await writer.close()


async def test_close_flushes_what_is_queued(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    writer = BatchedWriter(db_pool, batch_size=1000, flush_seconds=60, telemetry=telemetry)
    writer.start()
    for i in range(1, 8):
        writer.submit(_message(i))
    await writer.close()
    assert await _count(db_pool) == 7


async def test_one_bad_event_does_not_block_the_rest(
    writer: BatchedWriter, db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    writer.submit(_message(1))
    writer.submit(_message(2**63))  # outside bigint: the database can never take it
    writer.submit(_message(3))
    await writer.flush()
    stored = {row["message_id"] for row in await db_pool.fetch("SELECT message_id FROM messages")}
    assert stored == {1, 3}
    assert [e["outcome"] for e in telemetry.recent("ingest_reject")] == ["error"]


def test_transient_errors_are_told_apart_from_bad_data() -> None:
    assert is_transient(ConnectionRefusedError())
    assert is_transient(asyncpg.exceptions.CannotConnectNowError("starting up"))
    assert is_transient(asyncpg.exceptions.ConnectionDoesNotExistError("closed"))
    assert not is_transient(asyncpg.exceptions.NumericValueOutOfRangeError("too big"))
    assert not is_transient(asyncpg.exceptions._base.DataError("invalid input for $1"))
