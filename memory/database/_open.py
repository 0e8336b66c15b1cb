"""The configured database as an admin sees it: where it is, whether it answers, and one line
saying why not.

Every front end opens the database through `open_configured_database`, so an unreachable
DATABASE_URL (or an embedded server that will not start) becomes one `DatabaseUnavailable`
line naming the host, the reason and what to check, instead of a driver traceback that a
caller could mistake for a Discord problem.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg

from db.embedded import EmbeddedPostgres, EmbeddedPostgresError
from db.lifecycle import open_database
from db.llm_capabilities import load_capabilities
from db.types import Connection
from memory.core.settings import Settings

# Where db.lifecycle keeps the embedded server inside DATA_DIR.
_EMBEDDED_SUBDIR = "pg"


class DatabaseUnavailable(Exception):
    """The database could not be opened; the message is one line for the admin."""


def _url(settings: Settings) -> str | None:
    return settings.database_url.get_secret_value() if settings.database_url else None


def describe_database(settings: Settings) -> str:
    """`PostgreSQL at host:port/name` or `embedded PostgreSQL in DIR`; never a password."""
    url = _url(settings)
    if url is None:
        return f"embedded PostgreSQL in {settings.data_dir}"
    try:
        parts = urlsplit(url)
        host = parts.hostname or "localhost (socket)"
        port = parts.port or 5432
    except ValueError:
        return "PostgreSQL at DATABASE_URL (not a valid URL)"
    name = parts.path.lstrip("/") or (parts.username or "")
    return f"PostgreSQL at {host}:{port}/{name}"


def embedded_exists(settings: Settings) -> bool:
    """True when DATABASE_URL is set or the embedded data directory was created before."""
    return _url(settings) is not None or (settings.data_dir / _EMBEDDED_SUBDIR).is_dir()


def _reason(exc: BaseException) -> tuple[str, str]:
    """(what went wrong, what to check) for the exceptions opening a database raises."""
    check = "check DATABASE_URL and that PostgreSQL runs and accepts connections from here"
    if isinstance(exc, socket.gaierror):
        return "unknown host", "check the host name in DATABASE_URL"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused", check
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "no answer (timed out)", "check the host, port and firewall"
    if isinstance(exc, asyncpg.InvalidPasswordError):
        return "password authentication failed", "check the user and password in DATABASE_URL"
    if isinstance(exc, asyncpg.InvalidCatalogNameError):
        return "the database does not exist", "create it or fix the name in DATABASE_URL"
    if isinstance(exc, asyncpg.InvalidAuthorizationSpecificationError):
        return f"access refused ({exc})", "check the user in DATABASE_URL and pg_hba.conf"
    if isinstance(exc, asyncpg.CannotConnectNowError):
        return "the server is starting up or shutting down", "try again in a moment"
    if isinstance(exc, asyncpg.ClientConfigurationError):
        return f"DATABASE_URL is not usable ({exc})", "fix it in DATABASE_URL"
    if isinstance(exc, EmbeddedPostgresError):
        first = str(exc).splitlines()[0] if str(exc) else "failed to start"
        return first, "see the server log in DATA_DIR/pg/log, or set DATABASE_URL"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text, check


# What opening a database raises when the server, not our code, is the problem.
CONNECT_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InvalidPasswordError,
    asyncpg.InvalidCatalogNameError,
    asyncpg.InvalidAuthorizationSpecificationError,
    asyncpg.CannotConnectNowError,
    EmbeddedPostgresError,
    # DATABASE_URL parses as a URL but asyncpg refuses a part of it (`sslmode=bogus`, ...).
    asyncpg.ClientConfigurationError,
)


def unavailable(exc: BaseException, settings: Settings) -> DatabaseUnavailable:
    reason, check = _reason(exc)
    return DatabaseUnavailable(
        f"cannot open the database ({describe_database(settings)}): {reason}; {check}"
    )


@asynccontextmanager
async def open_configured_database(
    settings: Settings, *, min_size: int | None = None, max_size: int | None = None
) -> AsyncIterator[asyncpg.Pool]:
    """The migrated pool of DATABASE_URL or the embedded server; failures to open it (not
    errors inside the block) become `DatabaseUnavailable`."""
    async with AsyncExitStack() as stack:
        try:
            pool = await stack.enter_async_context(
                open_database(
                    _url(settings),
                    settings.data_dir,
                    min_size=settings.db_pool_min if min_size is None else min_size,
                    max_size=settings.db_pool_max if max_size is None else max_size,
                )
            )
        except CONNECT_ERRORS as exc:
            raise unavailable(exc, settings) from exc
        yield pool


async def check_database(
    settings: Settings, *, wait_seconds: float = 5.0, formats: list[str] | None = None
) -> str:
    """Connect and run `SELECT 1`; the database's description, or DatabaseUnavailable. With
    `formats`, it receives one line per model endpoint that refused a request format (what
    it is asked in now).

    Never creates anything: a missing embedded data directory is reported, not initialised.
    """
    url = _url(settings)
    if url is None and not embedded_exists(settings):
        raise DatabaseUnavailable(
            f"no database yet: {settings.data_dir / _EMBEDDED_SUBDIR} does not exist"
        )
    server: EmbeddedPostgres | None = None
    try:
        if url is None:
            server = EmbeddedPostgres(Path(settings.data_dir) / _EMBEDDED_SUBDIR)
            url = server.start()  # attaches to the bot's running server when there is one
        connection = await asyncpg.connect(url, timeout=wait_seconds)
        try:
            await asyncio.wait_for(connection.fetchval("SELECT 1"), wait_seconds)
            if formats is not None:
                formats += await negotiated_formats(connection)
        finally:
            await connection.close()
    except CONNECT_ERRORS as exc:
        raise unavailable(exc, settings) from exc
    finally:
        if server is not None:
            server.stop()
    return describe_database(settings)


async def negotiated_formats(connection: Connection) -> list[str]:
    """`model at endpoint: structured output as json_object_schema, no tools` per stored row
    (none before V020 is applied)."""
    if not await connection.fetchval("SELECT to_regclass('llm_capabilities') IS NOT NULL"):
        return []
    return [
        f"{row.model} at {row.endpoint}: structured output as {row.structured}"
        + ("" if row.tools else ", no tools")
        for row in await load_capabilities(connection)
    ]


@asynccontextmanager
async def serve_embedded(settings: Settings) -> AsyncIterator[str]:
    """The embedded PostgreSQL of DATA_DIR, started, migrated and kept running while the block
    runs: its `DATABASE_URL` for other processes (shards, workers) on this machine."""
    from db.lifecycle import EMBEDDED_DATABASE, ensure_database
    from db.migrate import migrate

    server = EmbeddedPostgres(settings.data_dir / _EMBEDDED_SUBDIR)
    try:
        server.start()
    except EmbeddedPostgresError as exc:
        raise unavailable(exc, settings) from None
    try:
        await ensure_database(server.uri(), EMBEDDED_DATABASE)
        url = server.uri(EMBEDDED_DATABASE)
        connection = await asyncpg.connect(url)
        try:
            await migrate(connection)
        finally:
            await connection.close()
        yield url
    finally:
        server.stop()


serve_database = serve_embedded


async def migrate_database(settings: Settings) -> int:
    """Open the configured database, apply pending migrations; the schema version."""
    async with open_configured_database(settings) as pool:
        return int(await pool.fetchval("SELECT max(version) FROM schema_migrations"))
