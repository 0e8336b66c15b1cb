"""Visibility cog: keeps memory's record of which channels @everyone can read current, and the
per-member cache of readable channels (bot/readers.py) true.

Recorded on start (every channel and active thread of each guild that becomes available), when
a channel or thread is created, changed or deleted, when a role changes (the @everyone role's
permissions, or a role an overwrite names), and on the first message seen in a channel this
process has not recorded (threads that appeared while it was away). Only channels whose
visibility differs from what this process last recorded are written; memory rebuilds the
shared memory of days whose channels changed (memory/guilds/_visibility.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.backfill import active_threads
from bot.cogs.reach import Reach
from bot.readers import Channel, channel_view, guild_channels, has_messages
from memory.core.channels import ChannelView

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)


class VisibilityCog(commands.Cog, name="Visibility"):
    """Channel visibility from Discord's permissions, into memory."""

    def __init__(self, reach: Reach) -> None:
        self.bot, self.memory, self.readers = reach
        # (guild, channel) -> public, as this process last recorded it.
        self._recorded: dict[tuple[int, int], bool] = {}

    async def record(self, guild: discord.Guild, channels: list[Channel]) -> None:
        """Record the channels whose visibility this process has not recorded yet."""
        views: list[ChannelView] = []
        for channel in channels:
            view = channel_view(channel)
            if self._recorded.get((guild.id, view.channel_id)) != view.public:
                views.append(view)
        if not views:
            return
        try:
            await self.memory.visibility.record(guild.id, views)
        except Exception:
            _log.exception("could not record the visibility of %d channel(s)", len(views))
            return
        for view in views:
            self._recorded[(guild.id, view.channel_id)] = view.public

    async def record_guild(self, guild: discord.Guild, *, with_threads: bool = False) -> None:
        """Every channel and known thread; with `with_threads`, also the active threads
        Discord lists (start-up)."""
        self.readers.forget_guild(guild.id)
        channels = guild_channels(guild)
        if with_threads:
            known = {channel.id for channel in channels}
            channels += [t for t in await active_threads(guild) if t.id not in known]
        await self.record(guild, channels)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self.record_guild(guild, with_threads=True)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.record_guild(guild, with_threads=True)

    @commands.Cog.listener()
    async def on_guild_channel_create(self, channel: discord.abc.GuildChannel) -> None:
        await self.record_guild(channel.guild)

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        # A category's overwrites reach the channels synced with it, a channel's its threads.
        await self.record_guild(after.guild)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        # The row stays: the channel's stored messages keep the visibility they had.
        self.readers.forget_guild(channel.guild.id)

    @commands.Cog.listener()
    async def on_thread_create(self, thread: discord.Thread) -> None:
        self.readers.forget_guild(thread.guild.id)
        await self.record(thread.guild, [thread])

    @commands.Cog.listener()
    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        self.readers.forget_guild(after.guild.id)
        await self.record(after.guild, [after])

    @commands.Cog.listener()
    async def on_thread_delete(self, thread: discord.Thread) -> None:
        self.readers.forget_guild(thread.guild.id)

    @commands.Cog.listener()
    async def on_thread_member_join(self, member: discord.ThreadMember) -> None:
        self.readers.forget_guild(member.thread.guild.id)

    @commands.Cog.listener()
    async def on_thread_member_remove(self, member: discord.ThreadMember) -> None:
        self.readers.forget_guild(member.thread.guild.id)

    @commands.Cog.listener()
    async def on_guild_role_create(self, role: discord.Role) -> None:
        self.readers.forget_guild(role.guild.id)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        await self.record_guild(after.guild)

    @commands.Cog.listener()
    async def on_guild_role_delete(self, role: discord.Role) -> None:
        await self.record_guild(role.guild)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        if before.roles != after.roles:
            self.readers.forget_member(after.guild.id, after.id)

    @commands.Cog.listener()
    async def on_member_remove(self, member: discord.Member) -> None:
        self.readers.forget_member(member.guild.id, member.id)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """A channel this process never recorded (a thread opened while it was away)."""
        channel = message.channel
        if message.guild is None or not has_messages(channel):
            return
        if (message.guild.id, channel.id) not in self._recorded:
            await self.record(message.guild, [channel])


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(VisibilityCog(Reach.of(bot)))
