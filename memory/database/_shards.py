"""One owner per shard: a second process that claims a shard already run against the same
database refuses in one line naming the holder, so a double `memorybot run` can never answer
every message twice.

Shards are claimed per (SHARD_COUNT, shard id) with session advisory locks on a dedicated
connection held while the bot runs (db/shards.py). Processes started with different shard
counts would split the guilds differently and overlap, so a live holder under another count
refuses too. SHARD_COUNT=auto claims the one key ("auto", "all").

A session lock lives as long as its connection: a watchdog checks it every `WATCH_SECONDS`,
and when the connection was lost (a database restart) claims the shards again on a new one;
if another process took them meanwhile, `on_lost` is called (the bot stops) rather than both
answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from db.shards import (
    describe_owner,
    other_counts,
    owner_of,
    shard_lock_key,
    try_lock,
    unlock,
)
from db.types import Connection
from memory.core.shards import ShardPlan

_log = logging.getLogger(__name__)

WATCH_SECONDS = 15.0
_LOST = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError)


class ShardTaken(RuntimeError):
    """Another live process holds a shard this one was asked to run (the message names it)."""


def _shards(plan: ShardPlan) -> tuple[str, list[str]]:
    if plan.count is None:
        return "auto", ["all"]
    ids = plan.ids if plan.ids is not None else tuple(range(plan.count))
    return str(plan.count), [str(shard) for shard in ids]


def _holder(owner: dict[str, Any]) -> str:
    if not owner:
        return "another process"
    return f"pid {owner.get('pid')} on {owner.get('host')} (started {owner.get('started_at')})"


class _Claim:
    """The locks of one process's shards, on one held connection."""

    def __init__(self, pool: asyncpg.Pool, plan: ShardPlan) -> None:
        self._pool = pool
        self._count, self._shards = _shards(plan)
        self._me = {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "shards": plan.describe(),
        }
        self.connection: PoolConnectionProxy | None = None

    async def take(self) -> None:
        """Acquire a connection and every shard's lock on it, or raise ShardTaken (having
        released whatever was taken)."""
        connection = await self._pool.acquire()
        try:
            for shard in self._shards:
                if not await try_lock(connection, shard_lock_key(self._count, shard)):
                    owner = await owner_of(connection, self._count, shard)
                    raise ShardTaken(
                        f"shard {shard}/{self._count} is already run against this database by"
                        f" {_holder(owner)}; stop it first, or give this process other SHARD_IDS"
                    )
                await describe_owner(connection, self._count, shard, self._me)
            await _refuse_other_counts(connection, self._count)
        except BaseException:
            await self._release(connection)
            raise
        self.connection = connection

    async def alive(self) -> bool:
        connection = self.connection
        if connection is None:
            return False
        try:  # a proxy the pool took back (its connection was lost) raises InterfaceError
            return not connection.is_closed() and await connection.fetchval("SELECT 1") == 1
        except _LOST:
            return False

    async def drop(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            await self._release(connection)

    async def _release(self, connection: PoolConnectionProxy) -> None:
        """Unlock (a lost session has dropped its locks already) and give the connection back."""
        with contextlib.suppress(*_LOST):
            for shard in self._shards:
                await unlock(connection, shard_lock_key(self._count, shard))
        with contextlib.suppress(*_LOST):
            await self._pool.release(connection)


@asynccontextmanager
async def hold_shards(
    pool: asyncpg.Pool,
    plan: ShardPlan,
    *,
    on_lost: Callable[[], None] | None = None,
    watch_seconds: float = WATCH_SECONDS,
) -> AsyncIterator[None]:
    """Claim the plan's shards for as long as the block runs; ShardTaken when another live
    process holds one (or runs under another shard count). `on_lost` is called if the claim
    is lost for good while the block runs."""
    claim = _Claim(pool, plan)
    await claim.take()
    _log.info("claimed shards %s of this database", plan.describe())
    watchdog = asyncio.create_task(_watch(claim, on_lost, watch_seconds), name="shard-claim")
    try:
        yield
    finally:
        watchdog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watchdog
        await claim.drop()


async def _watch(claim: _Claim, on_lost: Callable[[], None] | None, seconds: float) -> None:
    """Re-claim after a lost connection; tell `on_lost` when someone else holds the shards."""
    while True:
        await asyncio.sleep(seconds)
        if await claim.alive():
            continue
        _log.warning("lost the database session holding this process's shards; claiming again")
        await claim.drop()
        try:
            await claim.take()
        except ShardTaken as exc:
            _log.error("%s: stopping so that no message is answered twice", exc)
            if on_lost is not None:
                on_lost()
            return
        except _LOST as exc:  # the database is still away: try again at the next tick
            _log.warning("could not claim the shards again yet: %s", exc)


async def _refuse_other_counts(connection: Connection, count: str) -> None:
    """A live holder under another SHARD_COUNT owns some of our guilds: refuse. Descriptions
    whose lock is free are left-overs of stopped processes."""
    for other, shard, owner in await other_counts(connection, count):
        key = shard_lock_key(other, shard)
        if await try_lock(connection, key):
            await unlock(connection, key)
            continue
        raise ShardTaken(
            f"this database is already run with SHARD_COUNT={other} (shard {shard}) by"
            f" {_holder(owner)}; every process must use the same SHARD_COUNT"
        )
