"""Channel visibility per guild: which channels @everyone may read, kept current by the
Discord adapter (and marked by an admin for imported channels).

Why it is data: shared memory (day notes, summaries, learned facts, contexts) is made only of
messages of public channels (db/visibility.py), so when a channel turns restricted (or public
again) the summarised days holding its messages are marked stale and rebuilt, the learned facts
drawn from it are dropped, and every process's warm contexts of the guild are invalidated.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import asyncpg

from db.guilds import get_settings, get_timezone
from db.visibility import (
    channel_visibility,
    drop_shared_memory,
    forget_learned_from,
    mark_channel_days_stale,
    public_channel_ids,
    record_channels,
)
from memory.core.channels import ChannelView
from memory.core.events import EventBus, GuildChanged

_log = logging.getLogger(__name__)


class ChannelVisibility:
    """Records channel visibility and makes shared memory follow it."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        default_timezone: str = "UTC",
        events: EventBus | None = None,
    ) -> None:
        self._pool = pool
        self._default_timezone = default_timezone
        # Told when shared memory must be rebuilt (GuildChanged: warm contexts go everywhere).
        self._events = events or EventBus()

    async def record(
        self, guild_id: int, channels: Sequence[ChannelView], *, source: str = "discord"
    ) -> list[int]:
        """Store what Discord says of these channels (a live bot overrides an admin's mark);
        the ids whose visibility changed, whose days are then rebuilt."""
        async with self._pool.acquire() as connection:
            changed = await record_channels(connection, guild_id, channels, source=source)
        if changed:
            restricted = [
                c.channel_id for c in channels if c.channel_id in changed and not c.public
            ]
            _log.info(
                "guild %s: visibility of %d channel(s) changed (%d now restricted)",
                guild_id,
                len(changed),
                len(restricted),
            )
            await self._rebuild(guild_id, changed, restricted)
        return changed

    async def mark(self, guild_id: int, channel_id: int, *, public: bool) -> bool:
        """An admin's mark (`memorybot settings --channel C --visibility ...`), for imported
        channels the bot cannot see; True when it changed anything."""
        view = ChannelView(channel_id, public)
        return bool(await self.record(guild_id, [view], source="admin"))

    async def channels(self, guild_id: int) -> dict[int, tuple[bool, str, str | None]]:
        """channel id -> (public, source, name) of every recorded channel."""
        return await channel_visibility(self._pool, guild_id)

    async def public_channels(self, guild_id: int) -> frozenset[int]:
        """Channels everyone can read, as recorded (unknown channels of stored messages count
        as public): the console, which has no Discord permissions, reads through these."""
        return frozenset(await public_channel_ids(self._pool, guild_id))

    async def _rebuild(self, guild_id: int, changed: list[int], restricted: list[int]) -> None:
        """Days holding the channels' messages are summarised again. Unless the guild builds
        memory from every channel, what shared memory drew from a channel now restricted goes
        at once (notes, summaries, narratives, contexts, learned facts), so no fallback serves
        it meanwhile."""
        timezone = await get_timezone(self._pool, guild_id, self._default_timezone)
        stored = await get_settings(self._pool, guild_id)
        days = await mark_channel_days_stale(self._pool, guild_id, changed, timezone)
        dropped = learned = 0
        if restricted and stored.get("memory_sources") != "all":
            async with self._pool.acquire() as connection:
                dropped = await drop_shared_memory(connection, guild_id, restricted, timezone)
            learned = await forget_learned_from(self._pool, guild_id, restricted)
        _log.info(
            "guild %s: %d day(s) marked stale, %d summary row(s) and %d learned fact(s) dropped",
            guild_id,
            days,
            dropped,
            learned,
        )
        await self._events.publish(GuildChanged(guild_id))
