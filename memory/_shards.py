"""One owner per shard: a second process that claims a shard already run against the same
database refuses in one line naming the holder, so a double `memorybot run` can never answer
every message twice.

Shards are claimed per (SHARD_COUNT, shard id) with session advisory locks on a dedicated
connection held while the bot runs (db/shards.py). Processes started with different shard
counts would split the guilds differently and overlap, so a live holder under another count
refuses too. SHARD_COUNT=auto claims the one key ("auto", "all").
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg

from db.shards import (
    describe_owner,
    other_counts,
    owner_of,
    shard_lock_key,
    try_lock,
    unlock,
)
from memory.core.shards import ShardPlan

_log = logging.getLogger(__name__)


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


@asynccontextmanager
async def hold_shards(pool: asyncpg.Pool, plan: ShardPlan) -> AsyncIterator[None]:
    """Claim the plan's shards for as long as the block runs; ShardTaken when another live
    process holds one (or runs under another shard count)."""
    count, shards = _shards(plan)
    me = {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "shards": plan.describe(),
    }
    async with pool.acquire() as connection:
        held: list[int] = []
        try:
            for shard in shards:
                key = shard_lock_key(count, shard)
                if not await try_lock(connection, key):
                    owner = await owner_of(connection, count, shard)
                    raise ShardTaken(
                        f"shard {shard}/{count} is already run against this database by"
                        f" {_holder(owner)}; stop it first, or give this process other SHARD_IDS"
                    )
                held.append(key)
                await describe_owner(connection, count, shard, me)
            await _refuse_other_counts(connection, count)
            _log.info("claimed shards %s of this database", plan.describe())
            yield
        finally:
            for key in held:
                # A lost session has dropped its locks already.
                with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                    await unlock(connection, key)


async def _refuse_other_counts(connection: asyncpg.Connection, count: str) -> None:
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
