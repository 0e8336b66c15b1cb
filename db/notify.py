"""Cache invalidation across processes with PostgreSQL LISTEN/NOTIFY.

Every change that makes a cached context stale (a fact change, forget, undo, purge, a settings
or timezone change, edited or deleted messages, a re-summarised day) is published on one
channel as a small JSON payload; every process listens on a dedicated connection and drops what
it holds. A lost listening connection is re-opened, and since events may have been missed
meanwhile, the process is told to drop everything it holds (`on_reconnect`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import uuid
from collections.abc import Callable
from typing import Any

import asyncpg

from db.types import Connection

_log = logging.getLogger(__name__)

CHANNEL = "memorybot_invalidate"


def new_origin() -> str:
    """A name for one memory instance (one process, usually): its own events are already
    applied locally, so its listener skips them."""
    return f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


Handler = Callable[[dict[str, Any]], None]


async def publish(db: asyncpg.Pool | Connection, origin: str, **event: Any) -> None:
    payload = json.dumps({**event, "origin": origin}, separators=(",", ":"))
    await db.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)


class InvalidationListener:
    """LISTENs on a dedicated connection for other processes' events; reconnects with backoff."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        on_event: Handler,
        on_reconnect: Callable[[], None],
        *,
        origin: str,
        retry_max: float = 10.0,
    ) -> None:
        self.origin = origin
        self._pool = pool
        self._on_event = on_event
        self._on_reconnect = on_reconnect
        self._retry_max = retry_max
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        self.server_pid: int | None = None  # of the listening connection (tests, diagnosis)
        self.reconnects = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="memorybot-invalidation")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _deliver(self, connection: object, pid: int, channel: str, payload: object) -> None:
        try:
            event = json.loads(str(payload))
        except json.JSONDecodeError:
            _log.warning("ignored a malformed invalidation event")
            return
        if event.get("origin") != self.origin:
            self._on_event(event)

    async def _run(self) -> None:
        delay, first = 0.5, True
        while True:
            try:
                # A pooled connection held for as long as it lives: LISTEN needs its own.
                connection = await self._pool.acquire()
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                _log.warning("invalidation listener cannot connect (%s); retrying", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)
                continue
            lost = asyncio.Event()
            connection.add_termination_listener(lambda _, lost=lost: lost.set())
            try:
                await connection.add_listener(CHANNEL, self._deliver)
                if not first:
                    _log.info("invalidation listener reconnected: dropping cached contexts")
                    self.reconnects += 1
                    self._on_reconnect()
                self.server_pid = connection.get_server_pid()
                first, delay = False, 0.5
                self.connected.set()
                await lost.wait()
                _log.warning("invalidation listener lost its connection; reconnecting")
            finally:
                self.connected.clear()
                with contextlib.suppress(Exception):
                    await connection.remove_listener(CHANNEL, self._deliver)
                with contextlib.suppress(Exception):
                    await self._pool.release(connection)
