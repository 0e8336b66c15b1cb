"""Throwaway databases for benchmarks: one server per run, one fresh migrated database per case.

The server is DATABASE_URL's when set (databases are created on it and dropped afterwards),
else an embedded PostgreSQL in a temporary directory. A migrated template database makes each
fresh database a cheap `CREATE DATABASE ... TEMPLATE` instead of a full migration.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from db.embedded import EmbeddedPostgres
from db.lifecycle import ensure_database
from db.migrate import migrate
from db.pool import create_pool

_log = logging.getLogger(__name__)


def with_database(url: str, name: str) -> str:
    """`url` pointing at database `name` instead of its own."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


class BenchServer:
    """A PostgreSQL server handing out fresh, migrated databases (see `database()`)."""

    def __init__(self, admin_dsn: str) -> None:
        self.admin_dsn = admin_dsn
        self._run = uuid.uuid4().hex[:8]
        self._template = f"bench_template_{self._run}"
        self._count = 0
        self._template_ready = False

    async def _ensure_template(self) -> None:
        if self._template_ready:
            return
        await ensure_database(self.admin_dsn, self._template)
        connection = await asyncpg.connect(with_database(self.admin_dsn, self._template))
        try:
            await migrate(connection)
        finally:
            await connection.close()
        self._template_ready = True

    @contextlib.asynccontextmanager
    async def database(self, label: str = "case") -> AsyncIterator[str]:
        """DSN of a new migrated database, dropped on exit."""
        await self._ensure_template()
        self._count += 1
        name = f"bench_{label}_{self._run}_{self._count}"
        admin = await asyncpg.connect(self.admin_dsn)
        try:
            await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}"')
        finally:
            await admin.close()
        try:
            yield with_database(self.admin_dsn, name)
        finally:
            await self._drop(name)

    @contextlib.asynccontextmanager
    async def pool(self, label: str = "case") -> AsyncIterator[asyncpg.Pool]:
        """A pool on a new migrated database (see `database`), closed and dropped on exit."""
        async with self.database(label) as dsn:
            pool = await create_pool(dsn, min_size=1, max_size=10)
            try:
                yield pool
            finally:
                await pool.close()

    async def aclose(self) -> None:
        if self._template_ready:
            await self._drop(self._template)
            self._template_ready = False

    async def _drop(self, name: str) -> None:
        admin = await asyncpg.connect(self.admin_dsn)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@contextlib.asynccontextmanager
async def bench_server() -> AsyncIterator[BenchServer]:
    """DATABASE_URL's server, else an embedded one in a temp dir (removed afterwards)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        server = BenchServer(url)
        try:
            yield server
        finally:
            await server.aclose()
        return
    with tempfile.TemporaryDirectory(prefix="memorybot-bench-") as tmp:
        os.chmod(tmp, 0o755)  # as root the server runs as another system user
        embedded = EmbeddedPostgres(Path(tmp) / "pg")
        admin = embedded.start()
        try:
            server = BenchServer(admin)
            try:
                yield server
            finally:
                await server.aclose()
        finally:
            embedded.stop()
