"""Who runs which shard against this database: a PostgreSQL session advisory lock per
(shard count, shard id), held on one dedicated connection for the life of the process, and a
`bot_state` row per shard naming the holder (host, pid, start time) so a refusal can say who.

The lock is the truth (it goes when the holder's session ends, however it ends); the row is
only its description, overwritten by the next holder.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import asyncpg

from db.types import Connection

OWNER_PREFIX = "shard_owner:"


def shard_lock_key(count: str, shard: str) -> int:
    """A stable signed 64-bit advisory lock key for one shard of one count."""
    digest = hashlib.blake2b(f"shard:{count}:{shard}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


async def try_lock(connection: Connection, key: int) -> bool:
    return bool(await connection.fetchval("SELECT pg_try_advisory_lock($1)", key))


async def unlock(connection: Connection, key: int) -> None:
    await connection.execute("SELECT pg_advisory_unlock($1)", key)


async def owner_of(db: asyncpg.Pool | Connection, count: str, shard: str) -> dict[str, Any]:
    """The stored description of a shard's holder ({} when none was ever written)."""
    value = await db.fetchval("SELECT value FROM bot_state WHERE key = $1", _key(count, shard))
    return json.loads(value) if value else {}


async def describe_owner(
    db: asyncpg.Pool | Connection, count: str, shard: str, owner: dict[str, Any]
) -> None:
    await db.execute(
        "INSERT INTO bot_state (key, value) VALUES ($1, $2)"
        " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
        _key(count, shard),
        json.dumps(owner, sort_keys=True),
    )


async def other_counts(
    db: asyncpg.Pool | Connection, count: str
) -> Sequence[tuple[str, str, dict[str, Any]]]:
    """(count, shard, owner) of every shard ever described under another shard count."""
    rows = await db.fetch(
        "SELECT key, value FROM bot_state WHERE key LIKE $1", OWNER_PREFIX.replace("_", r"\_") + "%"
    )
    found = []
    for row in rows:
        other, _, shard = row["key"].removeprefix(OWNER_PREFIX).partition(":")
        if other != count:
            found.append((other, shard, json.loads(row["value"])))
    return found


def _key(count: str, shard: str) -> str:
    return f"{OWNER_PREFIX}{count}:{shard}"
