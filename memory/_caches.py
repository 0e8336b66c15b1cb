"""Caches that hear other processes: every invalidation this process makes is also published
(NOTIFY), and every other process's is applied here (LISTEN); a reconnect drops everything."""

from __future__ import annotations

import asyncio
import logging

import asyncpg

from db.notify import InvalidationListener, new_origin, publish
from memory.context import MemoryManager

_log = logging.getLogger(__name__)


class CrossProcessCaches:
    """Keeps every process's caches true: local invalidations are also published (NOTIFY),
    other processes' are applied here (LISTEN); a reconnect drops everything held."""

    def __init__(self, pool: asyncpg.Pool, manager: MemoryManager) -> None:
        self._pool = pool
        self._manager = manager
        self._tasks: set[asyncio.Task[None]] = set()
        self._origin = new_origin()
        self.listener = InvalidationListener(
            pool, self._apply, manager.messages_changed, origin=self._origin
        )

    def member(self, guild_id: int, user_id: int) -> None:
        self._manager.invalidate(guild_id, user_id)
        self._publish(kind="member", guild_id=guild_id, user_id=user_id)

    def guild(self, guild_id: int) -> None:
        self._manager.invalidate_guild(guild_id)
        self._publish(kind="guild", guild_id=guild_id)

    def messages(self) -> None:
        self._manager.messages_changed()
        self._publish(kind="messages")

    def _publish(self, **event: object) -> None:
        task = asyncio.create_task(self._send(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, event: dict[str, object]) -> None:
        try:
            await publish(self._pool, self._origin, **event)
        except Exception as exc:  # the others catch up at their next hour bucket
            _log.warning("could not publish an invalidation: %s", type(exc).__name__)

    def _apply(self, event: dict[str, object]) -> None:
        kind = event.get("kind")
        if kind == "member":
            self._manager.invalidate(int(event["guild_id"]), int(event["user_id"]))  # type: ignore[arg-type]
        elif kind == "guild":
            self._manager.invalidate_guild(int(event["guild_id"]))  # type: ignore[arg-type]
        else:
            self._manager.messages_changed()

    async def aclose(self) -> None:
        await self.listener.stop()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
