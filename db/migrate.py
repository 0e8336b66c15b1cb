"""Migration runner: numbered plain SQL files applied in order, once each.

Each file runs in its own transaction and is recorded in `schema_migrations`. A session-level
advisory lock makes concurrent starters (two bot processes, a CLI next to the bot) wait for one
another instead of applying the same file twice.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from db.jobs import ensure_job_queue
from db.types import Connection

_log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_FILE_PATTERN = re.compile(r"^V(\d{3,})__([a-z0-9_]+)\.sql$")
# Arbitrary constant shared by every memorybot process: "memorybot" in hex-ish.
MIGRATION_LOCK_ID = 0x6D656D6F7279


async def ensure_embeddings(connection: Connection, directory: Path) -> None:
    """Run V028 again (it took this over from V027, which took it from V012: each changed the
    table's shape): it creates pgvector's table once the extension can be created (e.g.
    installed after the first start), and does nothing otherwise."""
    for migration in discover(directory):
        if migration.name == "message_embeddings_by_width":
            await connection.execute(migration.sql)


class MigrationError(RuntimeError):
    """A migration file is malformed, was edited after being applied, or failed."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def discover(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """All migrations in version order; a stray or duplicate file is an error, not skipped."""
    migrations: list[Migration] = []
    seen: set[int] = set()
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_PATTERN.match(path.name)
        if match is None:
            raise MigrationError(f"migration file name not understood: {path.name}")
        version = int(match.group(1))
        if version in seen:
            raise MigrationError(f"two migrations with version {version}")
        seen.add(version)
        migrations.append(Migration(version, match.group(2), path.read_text(encoding="utf-8")))
    return sorted(migrations, key=lambda migration: migration.version)


async def migrate(connection: Connection, directory: Path = MIGRATIONS_DIR) -> list[int]:
    """Apply pending migrations; return the versions applied by this call."""
    migrations = discover(directory)
    await connection.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK_ID)
    try:
        await connection.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
        applied = {
            row["version"]: row["checksum"]
            for row in await connection.fetch("SELECT version, checksum FROM schema_migrations")
        }
        done: list[int] = []
        for migration in migrations:
            if migration.version in applied:
                if applied[migration.version] != migration.checksum:
                    raise MigrationError(
                        f"migration V{migration.version:03d} was changed after it was applied"
                    )
                continue
            _log.debug("applying migration V%03d__%s", migration.version, migration.name)
            try:
                async with connection.transaction():
                    await connection.execute(migration.sql)
                    await connection.execute(
                        "INSERT INTO schema_migrations (version, name, checksum)"
                        " VALUES ($1, $2, $3)",
                        migration.version,
                        migration.name,
                        migration.checksum,
                    )
            except asyncpg.PostgresError as exc:
                raise MigrationError(
                    f"migration V{migration.version:03d}__{migration.name} failed: {exc}"
                ) from exc
            done.append(migration.version)
        if directory == MIGRATIONS_DIR:
            await ensure_job_queue(connection)
            await ensure_embeddings(connection, directory)
        return done
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK_ID)
