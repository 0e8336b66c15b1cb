"""asyncpg pool creation: one pool per process, jsonb decoded to Python objects."""

from __future__ import annotations

import json
import logging

import asyncpg

_log = logging.getLogger(__name__)


async def _init_connection(connection: asyncpg.Connection) -> None:
    await connection.set_type_codec(
        "jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
    )
    await connection.set_type_codec(
        "json", encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
    )


async def create_pool(dsn: str, *, min_size: int = 1, max_size: int = 10) -> asyncpg.Pool:
    """Create the process-wide pool; every connection gets the json/jsonb codecs."""
    pool = await asyncpg.create_pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        init=_init_connection,
        command_timeout=60,
    )
    if pool is None:  # pragma: no cover - asyncpg returns None only when not awaited
        raise RuntimeError("asyncpg.create_pool returned None")
    return pool
