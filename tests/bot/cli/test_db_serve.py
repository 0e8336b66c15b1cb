"""`memorybot db serve`: the embedded PostgreSQL in the foreground, its DATABASE_URL printed for
other processes, stopped by SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import asyncpg


async def test_db_serve_prints_a_url_other_processes_use_and_stops_on_sigterm(
    server_tmp_path: Path,
) -> None:
    env = {
        **os.environ,
        "DATA_DIR": str(server_tmp_path / "data"),
        "LOG_DIR": str(server_tmp_path / "logs"),
        "MEMORYBOT_IN_CONTAINER": "0",
    }
    env.pop("DATABASE_URL", None)
    process = subprocess.Popen(  # noqa: ASYNC220 - a long-lived child, read in a thread
        [sys.executable, "-m", "bot", "db", "serve"],
        env=env,
        cwd=server_tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), 120)
        assert line.startswith("DATABASE_URL=")
        url = line.strip().split("=", 1)[1]
        connection = await asyncpg.connect(url)  # what a shard or a worker would do
        try:
            assert await connection.fetchval("SELECT max(version) FROM schema_migrations") >= 7
        finally:
            await connection.close()
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(asyncio.to_thread(process.wait), 60) == 0
        assert "stopped" in process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
