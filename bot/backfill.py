"""Catch up on what was said while the bot was away: per readable text channel and active
thread, the history after the newest stored message (never older than the retention window),
oldest first.

Reconcile (the first run after start): the channel is read from the start of the retention
window instead, so what happened to already stored messages is seen too. A stored id that
Discord no longer returns was deleted while the bot was offline (its text is blanked, as for a
live delete); a message edited meanwhile gets its new text. Only a history read to the end
counts: a read cut short by an error deletes nothing.

Rate-limit friendly: channels are read one after another (discord.py pages 100 messages per
request and honours Discord's rate-limit headers), with a pause between channels, and messages
go into the writer through `put()`, which waits while the queue is full.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

import discord

from bot.convert import is_storable, to_chat_message
from memory.core.clock import Clock
from memory.core.models import ChatMessage
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.ports import StoredHistory, is_transient

_log = logging.getLogger(__name__)


class Writer(Protocol):
    """What the backfill needs of the batched writer."""

    async def put(self, message: ChatMessage) -> None: ...

    def submit_edit(self, message: ChatMessage) -> bool: ...

    def submit_delete(self, guild_id: int, message_id: int) -> bool: ...


Readable = discord.TextChannel | discord.Thread


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
    return [channel for channel in guild.text_channels if _readable(channel, guild)]


def _readable(channel: Readable, guild: discord.Guild) -> bool:
    try:
        permissions = channel.permissions_for(guild.me)
    except discord.ClientException:  # a thread whose parent we do not know
        return False
    return permissions.read_messages and permissions.read_message_history


async def active_threads(guild: discord.Guild) -> list[discord.Thread]:
    """Active threads the bot may read: asked of Discord, plus those the gateway told us of."""
    threads = {thread.id: thread for thread in guild.threads}
    try:
        threads.update((thread.id, thread) for thread in await guild.active_threads())
    except discord.HTTPException as exc:
        _log.warning("could not list active threads of guild %d: %s", guild.id, exc)
    return [thread for thread in threads.values() if _readable(thread, guild)]


class Backfiller:
    """Reads missed channel history into the writer."""

    def __init__(
        self,
        writer: Writer,
        stored: StoredHistory,
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
        self._stored = stored
        self._ignored = ignored or (lambda guild_id, channel_id: False)
        self._config = config
        self._clock = clock
        self._telemetry = telemetry
        self._self_id = self_id
        self._author_seen = author_seen
        # Between channels, so a catch-up does not hammer Discord (benchmarks set 0).
        self.pause_seconds = pause_seconds
        self._retry_max = retry_max_seconds

    async def run(self, guilds: Iterable[discord.Guild], *, reconcile: bool = False) -> int:
        total = 0
        for guild in list(guilds):
            total += await self.guild(guild, reconcile=reconcile)
        return total

    async def guild(self, guild: discord.Guild, *, reconcile: bool = False) -> int:
        channels: list[Readable] = [*readable_channels(guild), *await active_threads(guild)]
        channels = [
            channel
            for channel in channels
            if not self._ignored(guild.id, channel.id)
            and not self._ignored(guild.id, getattr(channel, "parent_id", None) or 0)
        ]
        if not channels:
            return 0
        last = await self._last_stored(guild.id, [channel.id for channel in channels])
        cutoff = self._clock.now() - timedelta(days=self._config.retention_days)
        floor = discord.utils.time_snowflake(cutoff, high=False)
        total = 0
        for index, channel in enumerate(channels):
            if index:
                await asyncio.sleep(self.pause_seconds)
            newest = max(last.get(channel.id, 0), floor)
            if reconcile and channel.id in last:
                total += await self.channel(channel, after_id=floor, reconcile_up_to=newest)
            else:
                total += await self.channel(channel, after_id=newest)
        return total

    async def channel(self, channel: Readable, *, after_id: int, reconcile_up_to: int = 0) -> int:
        """Store what is newer than `after_id` and not stored yet; with `reconcile_up_to`, the
        stored messages in (after_id, reconcile_up_to] that Discord no longer returns are
        deleted, and edited ones updated."""
        started = time.perf_counter()
        stored = deleted = 0
        seen: set[int] = set()
        known, after_id = await self._stored_between(channel, after_id, reconcile_up_to)
        include_bots = self._config.include_bots
        try:
            async for message in channel.history(
                limit=None, after=discord.Object(after_id), oldest_first=True
            ):
                seen.add(message.id)
                if not is_storable(message, self_id=self._self_id(), include_bots=include_bots):
                    continue
                converted = to_chat_message(message, max_chars=self._config.max_message_chars)
                if message.id in known:
                    if message.edited_at is not None:
                        self._writer.submit_edit(converted)  # a no-op unless the text changed
                    continue
                self._author_seen(message.author, channel.guild.id)
                await self._writer.put(converted)
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
        for message_id in known - seen:  # read to the end: these are gone from Discord
            self._writer.submit_delete(channel.guild.id, message_id)
            deleted += 1
        self._telemetry.emit(
            "backfill",
            guild_id=channel.guild.id,
            channel_id=channel.id,
            messages=stored,
            deleted=deleted,
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        if stored or deleted:
            _log.info(
                "backfilled %d messages from #%s; %d deleted while offline",
                stored,
                channel.name,
                deleted,
            )
        return stored

    async def _stored_between(
        self, channel: Readable, after_id: int, reconcile_up_to: int
    ) -> tuple[set[int], int]:
        """The stored ids a reconcile compares with Discord, and where the backfill starts:
        without a reconcile (none asked, or the database did not answer) nothing is known and
        the backfill starts after what was reconciled last."""
        if reconcile_up_to <= after_id:
            return set(), after_id
        try:
            stored = await self._stored.stored_message_ids(
                channel.guild.id, channel.id, after_id=after_id, up_to_id=reconcile_up_to
            )
        except Exception as exc:  # no reconcile this time; the backfill still runs
            _log.warning("cannot reconcile #%s (%d): %s", channel.name, channel.id, exc)
            return set(), reconcile_up_to
        return set(stored), after_id

    async def _last_stored(self, guild_id: int, channel_ids: list[int]) -> dict[int, int]:
        """Where each channel's backfill starts; waits (with backoff) for the database."""
        delay = 1.0
        while True:
            try:
                return await self._stored.last_stored_ids(guild_id, channel_ids)
            except Exception as exc:
                if not is_transient(exc):
                    raise
                _log.warning("backfill waiting for the database (%s); retry in %.0fs", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)
