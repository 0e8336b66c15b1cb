"""The guild-day advisory lock: across processes, one summarises a guild-day at a time."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date

import asyncpg

from db.pool import mark_session_state
from db.types import Connection

_log = logging.getLogger(__name__)


def day_lock_key(guild_id: int, day: date) -> int:
    """A stable signed 64-bit advisory lock key for one guild-day (same in every process)."""
    digest = hashlib.blake2b(f"summary-day:{guild_id}:{day.isoformat()}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


@asynccontextmanager
async def guild_day_lock(
    pool: asyncpg.Pool, guild_id: int, day: date, *, wait_seconds: float = 30.0
) -> AsyncIterator[tuple[Connection, bool]]:
    """Hold the guild-day's advisory lock on a dedicated connection.

    Yields (connection, waited): `waited` is True when another process held the lock first,
    in which case the caller should re-check the stored day before summarising it again. The
    wait is bounded (`lock_timeout`): a process stuck behind a hung model gives up with
    asyncpg.LockNotAvailableError instead of pinning a pooled connection forever.
    """
    key = day_lock_key(guild_id, day)
    async with pool.acquire() as connection:
        # A session lock (and maybe lock_timeout): the full reset runs on release.
        mark_session_state(connection)
        waited = False
        if not await connection.fetchval("SELECT pg_try_advisory_lock($1)", key):
            waited = True
            _log.info("guild %s day %s is being summarised elsewhere; waiting", guild_id, day)
            await connection.execute(
                "SELECT set_config('lock_timeout', $1, false)", f"{int(wait_seconds * 1000)}ms"
            )
            try:
                await connection.execute("SELECT pg_advisory_lock($1)", key)
            finally:
                await connection.execute("RESET lock_timeout")
        try:
            yield connection, waited
        finally:
            # Releasing the connection also drops session locks, but unlock promptly.
            try:
                await connection.execute("SELECT pg_advisory_unlock($1)", key)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                _log.warning("advisory unlock failed for guild %s day %s", guild_id, day)
