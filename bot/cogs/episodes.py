"""Episodes on Discord: `/catchup`, `/memory episodes`, `/memory digest`, and posting the daily
digest a job composed ("Bot, what did I miss?" is a message: `Conversation.answer` answers it).

Translation only: the words come from `FrontDoor.episodes`. Which channels a member may read is
resolved by the bot's `ChannelReaders` (bot/readers.py), the one Discord-side place that
decides it, cached per member; answers ping nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.checks import manage_server_only
from bot.cogs.reach import Reach
from bot.interactions import NO_PINGS, followup_in_parts, respond
from memory.core.split import reply_parts
from memory.ports import (
    InvalidDigestTime,
    InvalidSetting,
    listing_line,
    parse_digest_time,
)

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)

RECENT_EPISODES = 10


class EpisodesCog(commands.Cog, name="Episodes"):
    """Catch-up for members, episode listings and the digest for admins."""

    def __init__(self, reach: Reach) -> None:
        self.bot, self.memory, self.readers = reach
        self._poster: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        group = self.bot.tree.get_command("memory")
        if isinstance(group, app_commands.Group):
            group.add_command(self._episodes_command())
            group.add_command(self._digest_command())
        self._poster = asyncio.create_task(self._post_digests(), name="memorybot-digests")

    async def cog_unload(self) -> None:
        if self._poster is not None:
            self._poster.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poster

    # --- catch-up ------------------------------------------------------------------------

    @app_commands.command(name="catchup", description="What you missed since you last wrote")
    @app_commands.describe(hours="Look back this many hours instead (1-168)")
    @app_commands.guild_only()
    async def catchup(
        self, interaction: discord.Interaction, hours: app_commands.Range[int, 1, 168] | None = None
    ) -> None:
        assert interaction.guild is not None and isinstance(interaction.user, discord.Member)
        await interaction.response.defer(ephemeral=True, thinking=True)
        viewer = self.readers.search_viewer(interaction.guild, interaction.user)
        text = await self.memory.episodes.catch_up(
            interaction.guild.id, interaction.user.id, viewer, hours=hours
        )
        for part in reply_parts(text):
            await interaction.followup.send(part, ephemeral=True, allowed_mentions=NO_PINGS)

    # --- /memory episodes, /memory digest ------------------------------------------------

    def _episodes_command(self) -> app_commands.Command[Any, ..., None]:
        memory = self.memory
        readers = self.readers

        async def episodes(interaction: discord.Interaction) -> None:
            assert interaction.guild is not None and isinstance(interaction.user, discord.Member)
            await interaction.response.defer(ephemeral=True, thinking=True)
            channel_id = interaction.channel_id or 0
            viewer = readers.search_viewer(interaction.guild, interaction.user)
            found = await memory.episodes.listing(
                interaction.guild.id, channel_id=channel_id, viewer=viewer, limit=RECENT_EPISODES
            )
            timezone = await memory.manager.timezone(interaction.guild.id)
            lines = [listing_line(e, timezone, f"<#{e.channel_id}>") for e in found]
            text = "\n".join(lines) or "No episodes in this channel yet."
            await followup_in_parts(interaction, text)

        return app_commands.Command(
            name="episodes",
            description="The recent conversations (episodes) of this channel",
            callback=episodes,
        )

    def _digest_command(self) -> app_commands.Command[Any, ..., None]:
        memory = self.memory

        @manage_server_only()
        async def digest(
            interaction: discord.Interaction,
            channel: discord.TextChannel | None = None,
            time: str | None = None,
        ) -> None:
            assert interaction.guild_id is not None
            if channel is None and time is None:
                current = await memory.guild_settings.update(interaction.guild_id, digest_off=True)
                await respond(interaction, "Daily digest turned off.")
                return
            if channel is None or time is None:
                await respond(interaction, "Give both a channel and a time (HH:MM), or neither.")
                return
            try:
                at = parse_digest_time(time)
                current = await memory.guild_settings.update(
                    interaction.guild_id, digest=(channel.id, at)
                )
            except (InvalidDigestTime, InvalidSetting) as exc:
                await respond(interaction, str(exc))
                return
            await respond(
                interaction,
                f"Daily digest: {channel.mention} at {current.digest_time} ({current.timezone}),"
                " yesterday's conversations of public channels.",
            )

        command: app_commands.Command[Any, Any, None] = app_commands.Command(
            name="digest",
            description="Post a daily digest of yesterday's conversations (admins)",
            callback=digest,
        )
        command._params["channel"].description = "Where to post it (leave both empty: off)"
        command._params["time"].description = "HH:MM in the server's time zone, e.g. 08:00"
        return command

    # --- posting digests -----------------------------------------------------------------

    async def _post_digests(self) -> None:
        """Post composed digests of this process's guilds, each once (claimed in the
        database), every DIGEST_POLL_SECONDS."""
        await self.bot.wait_until_ready()
        while True:
            try:
                await self._post_pending()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the next round tries again
                _log.warning("posting digests failed: %s", exc)
            await asyncio.sleep(self.memory.settings.digest_poll_seconds)

    async def _post_pending(self) -> None:
        guild_ids = [guild.id for guild in self.bot.guilds]
        while guild_ids and (pending := await self.memory.episodes.next_digest(guild_ids)):
            channel = self.bot.get_channel(pending.channel_id)
            if not isinstance(channel, discord.TextChannel):
                _log.warning(
                    "digest channel %s of guild %s is gone", pending.channel_id, pending.guild_id
                )
            else:
                for part in reply_parts(pending.text):
                    await channel.send(part, allowed_mentions=NO_PINGS)
            await self.memory.episodes.digest_posted(pending)


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(EpisodesCog(Reach.of(bot)))
