"""Embedding what the writer just stored, off the reply's path: the writer tells `note()` what it
stored (new and edited messages); one background task embeds those of them that have no current
vector, read by their ids (EmbeddingIndex.index_messages), so a message is found by meaning
seconds after it is said rather than at the next sweep. A guild noted for more than NOTED_CAP
messages at once (a catch-up, a burst) has all its unembedded messages looked for instead
(EmbeddingIndex.look_through, batched: newest to oldest, each step going on from where the last
stopped; what is noted meanwhile is embedded by id beside it). Looking for them after every
batch the writer stored read a guild's whole history each time (its messages already embedded,
newest first, to fill a batch of 100 with the few new ones): a million-message guild, a million
rows a second. Used for the local embedder only: it spends no quota, and the cloud ones keep to
the sweep's queued jobs and their shared rate limit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from memory.core.models import ChatMessage

_log = logging.getLogger(__name__)

# Messages of one guild waiting by id at most; past them the guild is looked through instead.
NOTED_CAP = 2000


class EmbeddingFeed:
    """Messages (by guild) waiting to be embedded, and the one task that embeds them."""

    def __init__(
        self,
        index_messages: Callable[[int, list[int]], Awaitable[int]],
        look_through: Callable[[int, int | None], Awaitable[int | None]],
    ) -> None:
        self._index_messages = index_messages
        self._look_through = look_through
        self._pending: dict[int, set[int]] = {}  # guild -> the ids of its messages noted
        # Guilds whose unembedded messages are looked for -> the message to go on from (None:
        # the newest).
        self._whole: dict[int, int | None] = {}
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def note(self, messages: Sequence[ChatMessage]) -> None:
        """Messages were stored: embed them soon (after `aclose`: the sweep does)."""
        if self._closed or not messages:
            return
        for message in messages:
            noted = self._pending.setdefault(message.guild_id, set())
            noted.add(message.message_id)
            if len(noted) > NOTED_CAP:  # look through it all again, from the newest
                del self._pending[message.guild_id]
                self._whole[message.guild_id] = None
        if self._task is None or self._task.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the sweep catches up
                self._task = asyncio.get_running_loop().create_task(
                    self._drain(), name="memorybot-embeddings"
                )

    async def settled(self) -> None:
        """Return once every guild noted so far is embedded (tests, the console)."""
        while self._waiting() or (self._task is not None and not self._task.done()):
            if self._task is None or self._task.done():
                await self._drain()
            else:
                await asyncio.shield(self._task)

    def _waiting(self) -> bool:
        return bool(self._pending or self._whole)

    async def _drain(self) -> None:
        while self._waiting():
            # A step for each guild waiting, then the next round: a guild looked through for
            # a catch-up does not hold another's live lines back.
            for guild_id in dict.fromkeys([*self._pending, *self._whole]):
                try:
                    await self._embed(guild_id)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # the next batch or the sweep embeds them
                    _log.warning("embedding the messages of guild %s failed: %s", guild_id, exc)

    async def _embed(self, guild_id: int) -> None:
        """One step for the guild: its noted messages, and one step of looking through it."""
        if guild_id in self._pending:
            noted = self._pending.pop(guild_id)
            await self._index_messages(guild_id, sorted(noted, reverse=True))
        if guild_id in self._whole:
            after = await self._look_through(guild_id, self._whole.pop(guild_id))
            if after is not None and guild_id not in self._whole:  # more to do, from there
                self._whole[guild_id] = after

    async def aclose(self) -> None:
        self._closed = True
        self._pending.clear()
        self._whole.clear()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
