"""The embedded server starts, answers a query, and stops leaving no process behind."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import psutil
import pytest

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
            answer: int = await connection.fetchval("SELECT 40 + 2")
            return answer
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


HOLDER = """
import sys, time
from pathlib import Path
from db.embedded import EmbeddedPostgres
server = EmbeddedPostgres(Path(sys.argv[1]))
server.start()
print(server.pid(), flush=True)
time.sleep(600)
"""


def _hold_server(data_dir: Path) -> tuple[subprocess.Popen[str], int]:
    """Another process starts the server and keeps it; returns (process, postmaster pid)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert holder.stdout is not None
    line = holder.stdout.readline()
    assert line.strip().isdigit(), f"holder did not start the server: {line!r}"
    return holder, int(line)


def _release_server(holder: subprocess.Popen[str], data_dir: Path) -> None:
    """The holder dies without stopping its server; a run after it takes the server over and
    stops it (what a test leaves behind)."""
    holder.kill()
    holder.wait(timeout=10)
    cleanup = EmbeddedPostgres(data_dir)
    cleanup.start()
    cleanup.stop()


def _gone(pid: int) -> bool:
    if psutil.pid_exists(pid):
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).wait(timeout=15)
    return not psutil.pid_exists(pid)


def test_a_server_orphaned_by_sigkill_is_stopped_by_the_next_run(
    server_tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="db.embedded")
    data_dir = server_tmp_path / "pg"
    holder, postmaster = _hold_server(data_dir)
    holder.kill()  # SIGKILL: no atexit, no pg_ctl stop
    holder.wait(timeout=10)
    assert psutil.pid_exists(postmaster), "the orphan keeps running"

    server = EmbeddedPostgres(data_dir)
    server.start()
    assert server.pid() == postmaster  # recovered, not a second server on the same files
    assert "died without stopping it" in caplog.text
    server.stop()
    assert _gone(postmaster), "the next run must stop the orphaned server"
    assert "embedded PostgreSQL stopped" in caplog.text


def test_stop_says_left_running_when_another_process_still_uses_it(
    server_tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="db.embedded")
    data_dir = server_tmp_path / "pg"
    holder, postmaster = _hold_server(data_dir)
    try:
        server = EmbeddedPostgres(data_dir)
        server.start()
        server.stop()
        assert psutil.pid_exists(postmaster)  # the other process still needs it
        assert "embedded PostgreSQL stopped" not in caplog.text
        assert f"left running: still used by process {holder.pid}" in caplog.text
    finally:
        _release_server(holder, data_dir)
    assert _gone(postmaster)


def test_a_pid_file_naming_another_process_is_stale(server_tmp_path: Path) -> None:
    """After a crash the pid in postmaster.pid may be dead or reused by something else."""
    data_dir = server_tmp_path / "pg"
    server = EmbeddedPostgres(data_dir)
    server.start()
    lines = (data_dir / "postmaster.pid").read_text().splitlines()
    first = server.pid()
    server.stop()
    assert first is not None and _gone(first)
    # the pid of a live process that is not PostgreSQL (this test)
    (data_dir / "postmaster.pid").write_text("\n".join([str(os.getpid()), *lines[1:]]) + "\n")

    again = EmbeddedPostgres(data_dir)
    again.start()
    try:

        async def query() -> int:
            connection = await asyncpg.connect(again.uri())
            try:
                one: int = await connection.fetchval("SELECT 1")
                return one
            finally:
                await connection.close()

        assert asyncio.run(query()) == 1
        assert again.pid() != os.getpid()
    finally:
        again.stop()
