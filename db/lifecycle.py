"""Open the database the settings point at: DATABASE_URL, or the embedded server under .data/.

Start-up always migrates, so every entry point (bot, console, CLI) sees the current schema.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg

from db.embedded import EmbeddedPostgres
from db.migrate import migrate
from db.pool import create_pool

_log = logging.getLogger(__name__)

EMBEDDED_DATABASE = "memorybot"


async def ensure_database(admin_dsn: str, name: str) -> None:
    """Create database `name` on the server behind `admin_dsn` if it does not exist."""
    connection = await asyncpg.connect(admin_dsn)
    try:
        exists = await connection.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
        if not exists:
            # another process may create it between our check and our create
            with contextlib.suppress(asyncpg.DuplicateDatabaseError):
                await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()


@asynccontextmanager
async def open_database(
    database_url: str | None,
    data_dir: Path,
    *,
    min_size: int = 1,
    max_size: int = 10,
) -> AsyncIterator[asyncpg.Pool]:
    """Yield a migrated pool; the embedded server (if we started it) stops on exit."""
    server: EmbeddedPostgres | None = None
    dsn = database_url
    if dsn is None:
        server = EmbeddedPostgres(data_dir / "pg")
        server.start()
        await ensure_database(server.uri(), EMBEDDED_DATABASE)
        dsn = server.uri(EMBEDDED_DATABASE)
    try:
        pool = await create_pool(dsn, min_size=min_size, max_size=max_size)
        try:
            async with pool.acquire() as connection:
                applied = await migrate(connection)
            if applied:
                _log.info(
                    "database schema: applied %d migration(s), V%03d to V%03d",
                    len(applied),
                    min(applied),
                    max(applied),
                )
            yield pool
        finally:
            await pool.close()
    finally:
        if server is not None:
            server.stop()
