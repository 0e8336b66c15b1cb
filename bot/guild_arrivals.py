"""Every guild a shard holds is announced once per connection, even one discord.py dropped.

On READY, discord.py waits for each GUILD_CREATE with `asyncio.wait_for(queue.get(),
guild_ready_timeout)`. When a GUILD_CREATE is parsed just as that wait runs out (a big guild's
payload takes tens of milliseconds to parse, during which the timer expires), the wait raises
its timeout with the guild still in the queue, and the queue is dropped: the guild is in the
client's cache, available, and `on_guild_available` never fires. Every cog that learns a guild
from that event (the member directory, channel visibility) then never hears of it; the reply
bench lost its whole directory this way in about one run of four.

So when a shard is ready, any available guild of that shard not announced since the shard
connected is announced here, its members chunked first when the gateway did not send them all.
Announcing twice is harmless (the cogs compare what they already wrote); never is not.
"""

from __future__ import annotations

import asyncio
import logging

import discord
from discord.ext import commands

_log = logging.getLogger(__name__)

# How long a shard's ready waits for a missed guild's members before announcing it anyway.
CHUNK_SECONDS = 60.0


class GuildArrivals:
    """Watches which guilds each connection announced, and announces the ones it missed."""

    def __init__(self, bot: commands.AutoShardedBot) -> None:
        self._bot = bot
        self._announced: dict[int, set[int]] = {}  # shard id -> guilds announced since it connected
        bot.add_listener(self._connected, "on_shard_connect")
        bot.add_listener(self._arrived, "on_guild_available")
        bot.add_listener(self._arrived, "on_guild_join")
        bot.add_listener(self._shard_ready, "on_shard_ready")

    async def _connected(self, shard_id: int) -> None:
        """A new session: its READY announces the shard's guilds again."""
        self._announced.pop(shard_id, None)

    async def _arrived(self, guild: discord.Guild) -> None:
        self._announced.setdefault(guild.shard_id, set()).add(guild.id)

    async def _shard_ready(self, shard_id: int) -> None:
        announced = self._announced.get(shard_id, set())
        missed = [
            guild
            for guild in self._bot.guilds
            if guild.shard_id == shard_id and not guild.unavailable and guild.id not in announced
        ]
        for guild in missed:
            _log.warning(
                "guild %s became available without an event on shard %s; announcing it",
                guild.id,
                shard_id,
            )
            await self._chunked(guild)
            self._bot.dispatch("guild_available", guild)

    async def _chunked(self, guild: discord.Guild) -> None:
        """Its members, when the gateway sent only some (the members intent asks for all)."""
        if guild.chunked or not self._bot.intents.members:
            return
        try:
            await asyncio.wait_for(guild.chunk(cache=True), CHUNK_SECONDS)
        except (TimeoutError, discord.ClientException) as exc:
            _log.warning("members of guild %s not chunked (%s); announced anyway", guild.id, exc)
