"""A database migrated as it was before a given migration: what a test of an upgrade starts
from (the later files then run as an upgrade runs them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import asyncpg
import pytest

from db.embedded import EmbeddedPostgres
from db.lifecycle import ensure_database
from db.migrate import MIGRATIONS_DIR, discover, migrate


async def migrated_before(
    pg_server: EmbeddedPostgres, folder: Path, database: str, version: int
) -> asyncpg.Connection:
    """A connection to `database`, migrated with every file before `version` (copied into
    `folder`); skipped where the server has no pgvector (these upgrades move its table)."""
    old = folder / "migrations"
    old.mkdir()
    for migration in discover():
        if migration.version < version:
            name = f"V{migration.version:03d}__{migration.name}.sql"
            shutil.copy(MIGRATIONS_DIR / name, old / name)
    await ensure_database(pg_server.uri(), database)
    connection = await asyncpg.connect(pg_server.uri(database))
    await migrate(connection, old)
    if await connection.fetchval("SELECT to_regclass('message_embeddings')") is None:
        await connection.close()
        pytest.skip("pgvector is not available to this server")
    return connection
