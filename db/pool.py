"""asyncpg pool creation: one pool per process, jsonb decoded to Python objects.

A released connection is reset with a server round trip only when it may carry session
state. asyncpg's default sends `pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL`
after every use: one round trip per acquire, as many as the queries themselves on the reply
path (~15 a reply). Session state here is rare and known: LISTEN (the invalidation listener,
pgqueuer: seen as registered listeners) and session advisory locks / settings (the guild-day
lock: `mark_session_state`). Everything else is transaction-scoped (`SET LOCAL`, xact locks).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import asyncpg

from db.types import Connection

_log = logging.getLogger(__name__)

# The one statement timeout of every process (the bot, workers, the CLI, the dashboard): every
# call on a pool connection is cancelled on the server past it (asyncpg's command_timeout), a
# TimeoutError for the caller. Recall's searches set a tighter one of their own (db/recall.py).
# Read when a pool is created.
COMMAND_TIMEOUT_SECONDS = 60.0
# How long an idle pool connection stays open. asyncpg closes one after 300 s, so a quiet bot's
# next reply, or the first search after an import, opened new connections: cold backends that
# fill their catalog caches and load the vector extension again, while a search's lanes run on
# several at once. On the 1M-message recall bench the slowest guild-wide search after the
# vector index was built took 964 ms with 300 s, 399 ms with an hour (the first, 147 ms, in a
# run that printed each; docs/performance.md, changelog).
# An hour keeps a pool warm through a quiet spell and still gives connections back in the end.
IDLE_CONNECTION_SECONDS = 3600.0


class PooledConnection(asyncpg.Connection):
    """A pooled connection that skips the reset round trip when it holds no session state."""

    _session_state = False

    def mark_session_state(self) -> None:
        """This connection took a session-level lock or setting: the full reset (unlock all,
        RESET ALL, UNLISTEN) runs when it goes back to the pool."""
        self._session_state = True

    async def reset(self, *, timeout: float | None = None) -> None:  # noqa: ASYNC109 (asyncpg API)
        # asyncpg's own record of LISTEN callbacks (private, not in its type stubs).
        listening = bool(getattr(self, "_listeners", None) or getattr(self, "_log_listeners", None))
        if listening or self._session_state:
            self._session_state = False
            await super().reset(timeout=timeout)
            return
        # Clears listeners and rolls back a transaction left open, without a round trip
        # when there is none.
        await self._reset()


async def _init_connection(connection: Connection) -> None:
    await connection.set_type_codec(
        "jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
    )
    await connection.set_type_codec(
        "json", encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
    )


def mark_session_state(connection: Any) -> None:
    """Tell the pool that `connection` (pooled, or a plain connection: then a no-op) holds
    session state to reset on release."""
    mark = getattr(connection, "mark_session_state", None)
    if mark is not None:
        mark()


async def create_pool(dsn: str, *, min_size: int = 1, max_size: int = 10) -> asyncpg.Pool:
    """Create the process-wide pool; every connection gets the json/jsonb codecs and the
    statement timeout (COMMAND_TIMEOUT_SECONDS)."""
    pool = await asyncpg.create_pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        init=_init_connection,
        command_timeout=COMMAND_TIMEOUT_SECONDS,
        max_inactive_connection_lifetime=IDLE_CONNECTION_SECONDS,
        connection_class=PooledConnection,
    )
    if pool is None:  # pragma: no cover - asyncpg returns None only when not awaited
        raise RuntimeError("asyncpg.create_pool returned None")
    return pool
