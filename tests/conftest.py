"""Shared fixtures: one embedded PostgreSQL per test session, a fresh migrated database per test.

The template database is migrated once; each test gets `CREATE DATABASE ... TEMPLATE`, which is
fast and leaves no state behind for the next test.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from db.embedded import EmbeddedPostgres
from db.lifecycle import ensure_database
from db.migrate import migrate
from db.pool import create_pool
from memory.core import event_loop
from memory.core.telemetry import Telemetry
from tests.dead_endpoint import connections, dead_url  # noqa: F401 - fixtures
from tests.support import require

TEMPLATE_DB = "memorybot_template"
_counter = itertools.count()


@pytest.fixture(scope="session")
def event_loop_policy() -> asyncio.AbstractEventLoopPolicy:
    """The tests run on the event loop the program runs on (uvloop where installed).

    pytest-asyncio suggests its `pytest_asyncio_loop_factories` hook instead, but that one
    parametrizes only async tests: a sync test using an async session fixture then gets a
    second session loop, and the first one's fixtures (the template database) are torn down.
    """
    return event_loop.loop_policy()


@pytest.fixture
def server_tmp_path() -> Iterator[Path]:
    """A throwaway directory a PostgreSQL server may live in.

    pytest's own tmp_path sits under a 0700 directory that pytest re-creates per run; when we are
    root the server runs as another system user and must be able to traverse every parent.
    """
    with tempfile.TemporaryDirectory(prefix="memorybot-test-") as tmp:
        os.chmod(tmp, 0o755)
        yield Path(tmp)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[EmbeddedPostgres]:
    """A private server for the whole session, in a throwaway directory."""
    with tempfile.TemporaryDirectory(prefix="memorybot-test-pg-") as tmp:
        os.chmod(tmp, 0o755)  # the server may run as another system user when we are root
        server = EmbeddedPostgres(Path(tmp) / "pg")
        server.start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="session")
async def template_dsn(pg_server: EmbeddedPostgres) -> str:
    await ensure_database(pg_server.uri(), TEMPLATE_DB)
    connection = await asyncpg.connect(pg_server.uri(TEMPLATE_DB))
    try:
        await migrate(connection)
    finally:
        await connection.close()
    return pg_server.uri(TEMPLATE_DB)


@pytest.fixture
async def database_dsn(pg_server: EmbeddedPostgres, template_dsn: str) -> AsyncIterator[str]:
    """DSN of a fresh, migrated database that is dropped after the test."""
    name = f"test_{os.getpid()}_{next(_counter)}"
    admin = await asyncpg.connect(pg_server.uri())
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE_DB}"')
    finally:
        await admin.close()
    yield pg_server.uri(name)
    admin = await asyncpg.connect(pg_server.uri())
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def db_pool(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_dsn, min_size=1, max_size=10)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
def telemetry() -> Telemetry:
    """A private telemetry hub so tests can assert on the events they caused."""
    return Telemetry()


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the real per-user directories (memory.core.paths), and the
    container guard is off unless a test turns it on (the environment may carry the flag)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("MEMORYBOT_IN_CONTAINER", "0")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs(present, what): fails under CI=true, skips elsewhere, when missing"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`tests.support.needs`: what a test needs from the machine, checked before it runs."""
    for mark in item.iter_markers("needs"):
        require(bool(mark.kwargs["present"]), str(mark.kwargs["what"]))
