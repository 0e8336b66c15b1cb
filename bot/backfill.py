"""Catch up on what was said while the bot was away: per readable text channel, the history
after the newest stored message (never older than the retention window), oldest first.

Rate-limit friendly: channels are read one after another (discord.py pages 100 messages per
request and honours Discord's rate-limit headers), with a pause between channels, and messages
go into the writer through `put()`, which waits while the queue is full.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

import discord

from bot.convert import is_storable, to_chat_message
from memory import is_transient
from memory.core.clock import Clock
from memory.core.models import ChatMessage
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry

_log = logging.getLogger(__name__)


class Writer(Protocol):
    """What the backfill needs of the batched writer."""

    async def put(self, message: ChatMessage) -> None: ...

    async def last_stored_ids(self, channel_ids: Sequence[int]) -> dict[int, int]: ...


AuthorSeen = Callable[[discord.Member | discord.User, int], None]


@dataclass(frozen=True, slots=True)
class BackfillConfig:
    """How far back to read (RETENTION_DAYS), whether other bots count, the message cap."""

    retention_days: int = 30
    include_bots: bool = False
    max_message_chars: int = 8000

    @classmethod
    def from_settings(cls, settings: Settings) -> BackfillConfig:
        return cls(
            settings.retention_days, settings.ingest_bot_messages, settings.max_message_chars
        )


def readable_channels(guild: discord.Guild) -> list[discord.TextChannel]:
    """Text channels whose history the bot may read."""
    channels = []
    for channel in guild.text_channels:
        permissions = channel.permissions_for(guild.me)
        if permissions.read_messages and permissions.read_message_history:
            channels.append(channel)
    return channels


class Backfiller:
    """Reads missed channel history into the writer."""

    def __init__(
        self,
        writer: Writer,
        *,
        config: BackfillConfig,
        clock: Clock,
        telemetry: Telemetry,
        self_id: Callable[[], int | None],
        author_seen: AuthorSeen,
        pause_seconds: float = 1.0,
        retry_max_seconds: float = 60.0,
        ignored: Callable[[int, int], bool] | None = None,
    ) -> None:
        self._writer = writer
        self._ignored = ignored or (lambda guild_id, channel_id: False)
        self._config = config
        self._clock = clock
        self._telemetry = telemetry
        self._self_id = self_id
        self._author_seen = author_seen
        self._pause = pause_seconds
        self._retry_max = retry_max_seconds

    async def run(self, guilds: Iterable[discord.Guild]) -> int:
        total = 0
        for guild in list(guilds):
            total += await self.guild(guild)
        return total

    async def guild(self, guild: discord.Guild) -> int:
        channels = [
            channel
            for channel in readable_channels(guild)
            if not self._ignored(guild.id, channel.id)
        ]
        if not channels:
            return 0
        last = await self._last_stored([channel.id for channel in channels])
        cutoff = self._clock.now() - timedelta(days=self._config.retention_days)
        floor = discord.utils.time_snowflake(cutoff, high=False)
        total = 0
        for index, channel in enumerate(channels):
            if index:
                await asyncio.sleep(self._pause)
            total += await self.channel(channel, after_id=max(last.get(channel.id, 0), floor))
        return total

    async def channel(self, channel: discord.TextChannel, *, after_id: int) -> int:
        started = time.perf_counter()
        stored = 0
        include_bots = self._config.include_bots
        try:
            async for message in channel.history(
                limit=None, after=discord.Object(after_id), oldest_first=True
            ):
                if not is_storable(message, self_id=self._self_id(), include_bots=include_bots):
                    continue
                self._author_seen(message.author, channel.guild.id)
                await self._writer.put(
                    to_chat_message(message, max_chars=self._config.max_message_chars)
                )
                stored += 1
        except discord.HTTPException as exc:  # Forbidden, or Discord having a bad minute
            _log.warning("backfill of #%s (%d) stopped: %s", channel.name, channel.id, exc)
            self._telemetry.emit(
                "backfill",
                outcome="error",
                guild_id=channel.guild.id,
                channel_id=channel.id,
                messages=stored,
                error=f"{type(exc).__name__}: {exc}"[:300],
            )
            return stored
        self._telemetry.emit(
            "backfill",
            guild_id=channel.guild.id,
            channel_id=channel.id,
            messages=stored,
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        if stored:
            _log.info("backfilled %d messages from #%s", stored, channel.name)
        return stored

    async def _last_stored(self, channel_ids: list[int]) -> dict[int, int]:
        """Where each channel's backfill starts; waits (with backoff) for the database."""
        delay = 1.0
        while True:
            try:
                return await self._writer.last_stored_ids(channel_ids)
            except Exception as exc:
                if not is_transient(exc):
                    raise
                _log.warning("backfill waiting for the database (%s); retry in %.0fs", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)
