"""The pool resets a released connection with a round trip only when it holds session state:
a guild-day lock or a LISTEN never outlives its user, a plain query costs no extra round trip."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date

import asyncpg
import pytest

from db.day_locks import guild_day_lock
from db.pool import create_pool
from tests.support import fetch_value


@pytest.fixture
async def one_connection(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_dsn, min_size=1, max_size=1)
    try:
        yield pool
    finally:
        await pool.close()


async def _advisory_locks(dsn: str) -> int:
    return await fetch_value(dsn, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")


async def test_a_guild_day_lock_is_gone_once_its_connection_is_back(
    one_connection: asyncpg.Pool, database_dsn: str
) -> None:
    async with guild_day_lock(one_connection, 1, date(2026, 1, 1)) as (connection, _):
        # A second session lock taken by the summariser's connection is not unlocked by it.
        await connection.execute("SELECT pg_advisory_lock(42)")
        assert await _advisory_locks(database_dsn) == 2
    assert await _advisory_locks(database_dsn) == 0


@pytest.mark.filterwarnings("ignore::asyncpg.InterfaceWarning")  # the listener left on purpose
async def test_a_listen_ends_with_its_user(one_connection: asyncpg.Pool) -> None:
    async with one_connection.acquire() as connection:
        await connection.add_listener("some_channel", lambda *args: None)
    async with one_connection.acquire() as connection:
        assert await connection.fetch("SELECT pg_listening_channels()") == []


async def test_a_plain_query_costs_no_reset_round_trip(one_connection: asyncpg.Pool) -> None:
    async with one_connection.acquire() as connection:
        before = connection._con._protocol.queries_count  # type: ignore[attr-defined]
        await connection.fetchval("SELECT 1")
    async with one_connection.acquire() as connection:
        # The one query, and no `RESET ALL; UNLISTEN *; ...` after it.
        assert connection._con._protocol.queries_count == before + 1  # type: ignore[attr-defined]


async def test_a_transaction_left_open_is_rolled_back(one_connection: asyncpg.Pool) -> None:
    async with one_connection.acquire() as connection:
        await connection.execute("BEGIN")
        await connection.execute("CREATE TABLE left_open (x int)")
    async with one_connection.acquire() as connection:
        assert not connection.is_in_transaction()
        assert await connection.fetchval("SELECT to_regclass('left_open')") is None
