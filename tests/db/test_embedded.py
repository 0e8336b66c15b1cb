"""The embedded server starts, answers a query, and stops leaving no process behind."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import psutil

from db.embedded import EmbeddedPostgres
from db.lifecycle import open_database


def test_embedded_server_starts_answers_and_stops(server_tmp_path: Path) -> None:
    server = EmbeddedPostgres(server_tmp_path / "pg")
    server.start()
    pid = server.pid()
    assert pid is not None and psutil.pid_exists(pid)

    async def query() -> int:
        connection = await asyncpg.connect(server.uri())
        try:
            return await connection.fetchval("SELECT 40 + 2")
        finally:
            await connection.close()

    assert asyncio.run(query()) == 42
    server.stop()
    psutil.wait_procs([psutil.Process(pid)] if psutil.pid_exists(pid) else [], timeout=10)
    assert not psutil.pid_exists(pid), "postgres must not outlive stop()"
    server.stop()  # idempotent


async def test_open_database_without_url_starts_migrates_and_stops(
    server_tmp_path: Path,
) -> None:
    async with open_database(None, server_tmp_path) as pool:
        version = await pool.fetchval("SELECT max(version) FROM schema_migrations")
        pid_file = (server_tmp_path / "pg" / "postmaster.pid").read_text().splitlines()[0]
    assert version >= 1
    pid = int(pid_file)
    if psutil.pid_exists(pid):
        psutil.Process(pid).wait(timeout=10)
    assert not psutil.pid_exists(pid)
