"""The batched writer under a failing database: a connection lost in the middle of the
one-by-one retry, a read-only failover, and rejected rows that must not leak their text."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from urllib.parse import urlparse

import asyncpg
import pytest

from db.embedded import EmbeddedPostgres
from memory.core.models import ChatMessage
from memory.core.telemetry import Telemetry
from memory.ingest import BatchedWriter, is_transient

GUILD = 10


def _message(message_id: int, content: str = "hello") -> ChatMessage:
    return ChatMessage(
        message_id=message_id,
        guild_id=GUILD,
        channel_id=20,
        author_id=30,
        content=content,
        created_at=datetime(2026, 11, 1, 12, 0, tzinfo=UTC),
    )


async def _until(probe: Callable[[], Awaitable[object]], timeout: float = 10.0) -> object:  # noqa: ASYNC109
    deadline = asyncio.get_running_loop().time() + timeout
    while not (found := await probe()):
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)
    return found


async def _stored(pool: asyncpg.Pool) -> set[int]:
    return {row["message_id"] for row in await pool.fetch("SELECT message_id FROM messages")}


def _writer(pool: asyncpg.Pool, telemetry: Telemetry) -> BatchedWriter:
    return BatchedWriter(
        pool,
        batch_size=50,
        flush_seconds=0.02,
        telemetry=telemetry,
        backoff_initial=0.02,
        backoff_max=0.2,
        acquire_timeout=5,
    )


async def test_connection_lost_during_the_one_by_one_retry_loses_nothing_later(
    db_pool: asyncpg.Pool, database_dsn: str, telemetry: Telemetry
) -> None:
    """A batch with one bad row is retried row by row; the database drops the connection
    halfway through. The writer must live on: 400 later messages are all stored."""
    blocker = await asyncpg.connect(database_dsn)
    writer = _writer(db_pool, telemetry)
    writer.start()
    try:
        # message 5, uncommitted in another session: our insert of 5 waits on its lock
        holding = blocker.transaction()
        await holding.start()
        await blocker.execute(
            "INSERT INTO messages (message_id, guild_id, channel_id, author_id, content,"
            " created_at) VALUES (5, $1, 20, 30, 'x', now())",
            GUILD,
        )
        for message_id in (1, 2**63, 5, 6):  # 2**63 is outside bigint: a data error
            writer.submit(_message(message_id))

        async def waiting_backend() -> int | None:
            pid: int | None = await blocker.fetchval(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            return pid

        pid = await _until(waiting_backend)
        assert await blocker.fetchval("SELECT pg_terminate_backend($1)", pid)
        await holding.rollback()

        later = list(range(1000, 1400))
        for message_id in later:
            writer.submit(_message(message_id))
        await asyncio.wait_for(writer.flush(), 30)
        stored = await _stored(db_pool)
        assert set(later) <= stored, f"{len(set(later) - stored)} of 400 later messages lost"
        assert {1, 5, 6} <= stored and 2**63 not in stored
        assert any(e["outcome"] == "retry" for e in telemetry.recent("ingest_batch"))
    finally:
        await asyncio.wait_for(writer.close(grace_seconds=10), 20)  # never raises
        await blocker.close()


async def test_a_writer_loop_that_dies_is_restarted(
    db_pool: asyncpg.Pool, telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even an error nobody foresaw (a bug) does not end ingestion: the supervisor restarts
    the flush loop, flush() still returns and all 101 messages are stored."""
    writer = _writer(db_pool, telemetry)
    original = writer._after_write
    failures = iter([RuntimeError("a bug")])

    def flaky() -> None:
        error = next(failures, None)
        if error is not None:
            raise error
        original()

    monkeypatch.setattr(writer, "_after_write", flaky)
    writer.start()
    try:
        writer.submit(_message(1))

        async def restarted() -> bool:
            return bool(telemetry.recent("ingest_writer_restart"))

        await _until(restarted)
        for message_id in range(2, 102):
            writer.submit(_message(message_id))
        await asyncio.wait_for(writer.flush(), 30)
        assert await _stored(db_pool) == set(range(1, 102))
    finally:
        await asyncio.wait_for(writer.close(grace_seconds=10), 20)


async def test_read_only_failover_delays_but_rejects_nothing(
    db_pool: asyncpg.Pool,
    database_dsn: str,
    pg_server: EmbeddedPostgres,
    telemetry: Telemetry,
) -> None:
    """default_transaction_read_only for a while (a failover): 200 messages arrive, every
    one is stored once the database takes writes again."""
    name = urlparse(database_dsn).path.lstrip("/")
    admin = await asyncpg.connect(pg_server.uri())
    writer = _writer(db_pool, telemetry)
    writer.start()
    try:
        writer.submit(_message(1))
        await writer.flush()
        await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
        )
        messages = list(range(100, 300))
        for message_id in messages:
            writer.submit(_message(message_id))

        async def refused_for_a_while() -> bool:
            retries = [
                e
                for e in telemetry.recent("ingest_batch")
                if e["outcome"] == "retry" and "25006" in e["error"]
            ]
            return len(retries) >= 20  # about 4 s at the 0.2 s backoff cap

        await _until(refused_for_a_while)
        await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = off')
        await asyncio.wait_for(writer.flush(), 30)
        stored = await _stored(db_pool)
        assert set(messages) <= stored, f"{len(set(messages) - stored)} of 200 messages lost"
        assert telemetry.recent("ingest_reject") == []
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
        await asyncio.wait_for(writer.close(grace_seconds=10), 20)
        await admin.close()


async def test_rejected_messages_never_reach_logs_or_telemetry(
    db_pool: asyncpg.Pool, telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    writer = _writer(db_pool, telemetry)
    writer.start()
    try:
        writer.submit(_message(1, "fine"))
        writer.submit(_message(2**63, "SECRET-DIARY-ENTRY"))
        writer.submit(_message(3, "fine too"))
        await writer.flush()
    finally:
        await writer.close()
    assert await _stored(db_pool) == {1, 3}
    rejects = telemetry.recent("ingest_reject")
    assert len(rejects) == 1
    assert rejects[0]["message_id"] == 2**63 and rejects[0]["content_chars"] == 18
    assert "SECRET" not in caplog.text
    assert "SECRET" not in json.dumps(telemetry.recent(), default=str)
    assert str(2**63) in caplog.text  # the id is what an admin needs to find it


def test_only_data_errors_reject_a_row() -> None:
    exceptions = asyncpg.exceptions
    assert not is_transient(exceptions.NumericValueOutOfRangeError("22003"))
    assert not is_transient(exceptions.UniqueViolationError("23505"))
    assert not is_transient(exceptions.CharacterNotInRepertoireError("22021"))
    assert not is_transient(UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"))
    assert is_transient(exceptions.ReadOnlySQLTransactionError("25006"))
    assert is_transient(exceptions.AdminShutdownError("57P01"))
    assert is_transient(exceptions.LockNotAvailableError("55P03"))
    assert is_transient(exceptions.QueryCanceledError("57014"))
    assert is_transient(exceptions.TooManyConnectionsError("53300"))
    assert is_transient(ConnectionResetError())
