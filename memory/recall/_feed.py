"""Embedding what the writer just stored, off the reply's path: the writer tells `note()` which
guilds got messages; one background task embeds each such guild's messages that have no current
vector (EmbeddingIndex.index_guild, batched), so a message is found by meaning seconds after it
is said rather than at the next sweep. Used for the local embedder only: it spends no quota, and
the cloud ones keep to the sweep's queued jobs and their shared rate limit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from memory.core.models import ChatMessage

_log = logging.getLogger(__name__)


class EmbeddingFeed:
    """Guilds waiting to be embedded, and the one task that embeds them."""

    def __init__(self, index_guild: Callable[[int], Awaitable[bool]]) -> None:
        self._index_guild = index_guild
        self._pending: set[int] = set()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def note(self, messages: Sequence[ChatMessage]) -> None:
        """Messages were stored: embed their guilds soon (after `aclose`: the sweep does)."""
        if self._closed or not messages:
            return
        self._pending.update(message.guild_id for message in messages)
        if self._task is None or self._task.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the sweep catches up
                self._task = asyncio.get_running_loop().create_task(
                    self._drain(), name="memorybot-embeddings"
                )

    async def settled(self) -> None:
        """Return once every guild noted so far is embedded (tests, the console)."""
        while self._pending or (self._task is not None and not self._task.done()):
            if self._task is None or self._task.done():
                await self._drain()
            else:
                await asyncio.shield(self._task)

    async def _drain(self) -> None:
        while self._pending:
            guild_id = self._pending.pop()
            try:
                if await self._index_guild(guild_id):
                    self._pending.add(guild_id)  # stopped at its cap with more to do
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the next batch or the sweep embeds them
                _log.warning("embedding the messages of guild %s failed: %s", guild_id, exc)

    async def aclose(self) -> None:
        self._closed = True
        self._pending.clear()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
