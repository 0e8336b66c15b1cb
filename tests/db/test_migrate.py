"""Migrations: apply to an empty database, are idempotent, and concurrent starters don't collide."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import asyncpg
import pytest

from db.embedded import EmbeddedPostgres
from db.lifecycle import ensure_database
from db.migrate import MigrationError, discover, migrate

EXPECTED_TABLES = {
    "guilds",
    "members",
    "messages",
    "user_facts",
    "fact_history",
    "forgotten_statements",
    "summary_days",
    "daily_summaries",
    "historical_summaries",
    "merged_contexts",
    "schema_migrations",
}


async def _fresh(pg_server: EmbeddedPostgres, name: str) -> str:
    admin = await asyncpg.connect(pg_server.uri())
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()
    await ensure_database(pg_server.uri(), name)
    return pg_server.uri(name)


async def _tables(dsn: str) -> set[str]:
    connection = await asyncpg.connect(dsn)
    try:
        rows = await connection.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    finally:
        await connection.close()
    return {row["tablename"] for row in rows}


async def test_migrations_apply_to_empty_database_and_are_idempotent(
    pg_server: EmbeddedPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="db.migrate")
    dsn = await _fresh(pg_server, "migrate_empty")
    connection = await asyncpg.connect(dsn)
    try:
        first = await migrate(connection)
        second = await migrate(connection)
    finally:
        await connection.close()
    assert first == [migration.version for migration in discover()]
    assert second == []
    assert await _tables(dsn) >= EXPECTED_TABLES
    # Issue 37.9: a first start does not print a line per migration file.
    assert not [r for r in caplog.records if r.levelno >= logging.INFO and r.name == "db.migrate"]


async def test_concurrent_migrators_apply_each_version_once(pg_server: EmbeddedPostgres) -> None:
    dsn = await _fresh(pg_server, "migrate_race")
    connections = [await asyncpg.connect(dsn) for _ in range(4)]
    try:
        results = await asyncio.gather(*(migrate(connection) for connection in connections))
        count = await connections[0].fetchval("SELECT count(*) FROM schema_migrations")
    finally:
        for connection in connections:
            await connection.close()
    applied = [versions for versions in results if versions]
    assert len(applied) == 1, "exactly one migrator should have done the work"
    assert count == len(discover())


async def test_edited_migration_is_refused(pg_server: EmbeddedPostgres, tmp_path: Path) -> None:
    dsn = await _fresh(pg_server, "migrate_edited")
    (tmp_path / "V001__one.sql").write_text("CREATE TABLE one (id int);")
    connection = await asyncpg.connect(dsn)
    try:
        await migrate(connection, tmp_path)
        (tmp_path / "V001__one.sql").write_text("CREATE TABLE one (id bigint);")
        with pytest.raises(MigrationError, match="changed after it was applied"):
            await migrate(connection, tmp_path)
    finally:
        await connection.close()


async def test_failing_migration_rolls_back_and_names_the_file(
    pg_server: EmbeddedPostgres, tmp_path: Path
) -> None:
    dsn = await _fresh(pg_server, "migrate_failing")
    (tmp_path / "V001__good.sql").write_text("CREATE TABLE good (id int);")
    (tmp_path / "V002__bad.sql").write_text("CREATE TABLE half (id int); SELECT nope FROM nowhere;")
    connection = await asyncpg.connect(dsn)
    try:
        with pytest.raises(MigrationError, match="V002__bad"):
            await migrate(connection, tmp_path)
        versions = await connection.fetch("SELECT version FROM schema_migrations")
        half = await connection.fetchval("SELECT to_regclass('half')")
    finally:
        await connection.close()
    assert [row["version"] for row in versions] == [1]
    assert half is None, "a failed migration must leave nothing behind"


def test_stray_file_names_are_rejected(tmp_path: Path) -> None:
    (tmp_path / "001_init.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match=r"001_init\.sql"):
        discover(tmp_path)


async def test_the_queue_and_the_embeddings_table_come_with_the_migrations(
    pg_server: EmbeddedPostgres,
) -> None:
    dsn = await _fresh(pg_server, "migrate_extras")
    connection = await asyncpg.connect(dsn)
    try:
        await migrate(connection)
        assert {"pgqueuer", "pgqueuer_log", "message_embeddings"} <= await _tables(dsn)
        # pgvector arrived after V012 had run without it: the next start creates the table.
        await connection.execute("DROP TABLE message_embeddings")
        assert await migrate(connection) == []
        assert "message_embeddings" in await _tables(dsn)
    finally:
        await connection.close()
