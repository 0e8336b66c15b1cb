"""Keeping a channel's episodes cut: after each ingest batch, on imports and on the sweep.

The writer tells `note()` which channels got messages (and the oldest one's time); a
background task cuts each such channel again from the episode that time falls in (live chat:
the open episode), reading at most PAGE messages at a time. Cutting is deterministic, so doing
it again, or from an earlier point, changes nothing that did not change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from datetime import datetime

import asyncpg

from db import episodes as store
from memory.core.models import ChatMessage
from memory.core.telemetry import Telemetry
from memory.episodes._segment import Segment, SegmentMessage, SegmentRules, segment

_log = logging.getLogger(__name__)

PAGE = 5_000


def _as_new(segments: Sequence[Segment], *, last_open: bool) -> list[store.NewEpisode]:
    episodes = []
    for index, part in enumerate(segments):
        episodes.append(
            store.NewEpisode(
                first_message_id=part.first.message_id,
                last_message_id=part.last.message_id,
                started_at=part.first.created_at,
                ended_at=part.last.created_at,
                message_count=len(part.messages),
                member_ids=part.member_ids,
                closed=index < len(segments) - 1 or not last_open,
            )
        )
    return episodes


class EpisodeCutter:
    """Cuts channels into episodes in the background; `rules_for(guild)` gives the guild's
    silence."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        rules_for: Callable[[int], SegmentRules],
        *,
        telemetry: Telemetry,
    ) -> None:
        self._pool = pool
        self._rules_for = rules_for
        self._telemetry = telemetry
        self._dirty: dict[tuple[int, int], datetime] = {}
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = False

    # --- the ingest hook ------------------------------------------------------------------

    def note(self, messages: Sequence[ChatMessage]) -> None:
        """Messages were stored: cut their channels again (soon, off the writer's path).
        After `aclose` (the writer drains last) the sweep cuts them instead."""
        if self._closed:
            return
        for message in messages:
            key = (message.guild_id, message.channel_id)
            known = self._dirty.get(key)
            if known is None or message.created_at < known:
                self._dirty[key] = message.created_at
        if not self._dirty:
            return
        self._idle.clear()
        self._wakeup.set()
        if self._task is None or self._task.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the sweep catches up
                self._task = asyncio.get_running_loop().create_task(
                    self._run(), name="memorybot-episodes"
                )

    async def settled(self) -> None:
        """Return once every channel noted so far is cut (tests, imports)."""
        while self._dirty or not self._idle.is_set():
            if self._task is None or self._task.done():
                await self._drain()
                return
            await self._idle.wait()

    async def _run(self) -> None:
        while True:
            await self._drain()
            self._idle.set()
            self._wakeup.clear()
            if not self._dirty:
                await self._wakeup.wait()

    async def _drain(self) -> None:
        while self._dirty:
            key = next(iter(self._dirty))
            since = self._dirty.pop(key)
            try:
                await self.cut_channel(key[0], key[1], since)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the next batch or sweep cuts it again
                _log.warning("cutting episodes of channel %s failed: %s", key[1], exc)
        self._idle.set()

    async def aclose(self) -> None:
        self._closed = True
        self._dirty.clear()
        self._idle.set()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- cutting --------------------------------------------------------------------------

    async def cut_channel(self, guild_id: int, channel_id: int, since: datetime | None) -> int:
        """Cut the channel again from the episode `since` falls in (None: its latest one);
        how many episode rows changed."""
        rules = self._rules_for(guild_id)
        changed = 0
        async with self._pool.acquire() as connection, connection.transaction():
            await store.lock_channel(connection, channel_id)
            # None: before every episode (or none yet): from the channel's first message.
            start = await store.anchor(connection, guild_id, channel_id, since)
            while True:
                rows = await store.messages_from(connection, guild_id, channel_id, start, PAGE)
                if not rows:
                    break
                messages = [
                    SegmentMessage(r["message_id"], r["created_at"], r["author_id"], r["content"])
                    for r in rows
                ]
                parts = segment(messages, rules)
                complete = len(rows) < PAGE
                changed += await store.replace_stretch(
                    connection,
                    guild_id,
                    channel_id,
                    start,
                    messages[-1].created_at,
                    _as_new(parts, last_open=True),
                )
                if complete or len(parts) == 1:
                    break
                start = (parts[-1].first.created_at, parts[-1].first.message_id)
        if changed:
            self._telemetry.emit(
                "episodes_cut", guild_id=guild_id, channel_id=channel_id, changed=changed
            )
        return changed

    async def cut_guild(self, guild_id: int) -> int:
        """Every channel of the guild, from its first stored message (`memorybot import`)."""
        changed = 0
        for channel_id in await store.guild_channels(self._pool, guild_id):
            changed += await self.cut_channel(guild_id, channel_id, _BEGINNING)
        return changed


# A time before any message: a cut from here starts at the channel's first message.
_BEGINNING = datetime.fromisoformat("1970-01-01T00:00:00+00:00")
