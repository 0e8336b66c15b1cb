"""The connection types every query module takes: a pool, a connection, or a connection
borrowed from a pool (asyncpg hands out a proxy, which behaves as a connection)."""

from __future__ import annotations

from typing import TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy

Connection: TypeAlias = asyncpg.Connection | PoolConnectionProxy
Executor: TypeAlias = asyncpg.Pool | Connection


async def fetch_one(db: Executor, query: str, *args: object) -> asyncpg.Record:
    """The row a query always returns (an aggregate, a row locked after it was ensured, an
    upsert's counts); a clear error instead of a None that fails later."""
    row: asyncpg.Record | None = await db.fetchrow(query, *args)
    if row is None:
        raise LookupError(f"the query returned no row: {' '.join(query.split())[:80]}")
    return row
