"""Ingest cog: every guild message, edit and delete, and the member directory, into memory.

Handlers never wait for the database: they convert the event and hand it to the batched writer
(`submit*()` is synchronous). The backfill of missed history runs as a background task started
on READY.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from cachetools import LRUCache
from discord.ext import commands

from bot.backfill import BackfillConfig, Backfiller
from bot.convert import is_storable, to_chat_message, to_member
from memory.core.models import Member
from memory.core.surrogates import clean_name
from memory.ports import FrontDoor

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)

KNOWN_MEMBERS = 50_000


class IngestCog(commands.Cog, name="Ingest"):
    """Stores the conversation and keeps the member directory fresh."""

    def __init__(self, bot: commands.Bot | commands.AutoShardedBot, memory: FrontDoor) -> None:
        self.bot = bot
        self.memory = memory
        self.writer = memory.writer
        self.settings = memory.settings
        # Last names written per (guild, user): a chatty member is not re-upserted per message.
        self._known: LRUCache[tuple[int, int], Member] = LRUCache(maxsize=KNOWN_MEMBERS)
        self.backfill_task: asyncio.Task[int] | None = None
        self._reconciled: set[int] = set()  # guilds reconciled since this process started
        self.backfiller = Backfiller(
            self.writer,
            memory.stored,
            config=BackfillConfig.from_settings(self.settings),
            clock=memory.clock,
            telemetry=memory.telemetry,
            self_id=self._self_id,
            author_seen=self.member_seen,
            ignored=self.ignored,
        )

    async def cog_unload(self) -> None:
        if self.backfill_task is not None:
            self.backfill_task.cancel()

    def _self_id(self) -> int | None:
        return self.bot.user.id if self.bot.user else None

    def ignored(self, guild_id: int, channel_id: int) -> bool:
        """Channels an admin excluded with `/memory settings` (no database wait: cached)."""
        return self.memory.guild_settings.peek(guild_id).ignores(channel_id)

    def _storable(self, message: discord.Message) -> bool:
        if message.guild is not None and self.ignored(message.guild.id, message.channel.id):
            return False
        return is_storable(
            message, self_id=self._self_id(), include_bots=self.settings.ingest_bot_messages
        )

    def member_seen(self, user: discord.Member | discord.User, guild_id: int) -> None:
        """Queue a directory update when this member's names differ from what we last wrote."""
        member = to_member(user, guild_id)
        key = (guild_id, user.id)
        if self._known.get(key) == member:
            return
        self._known[key] = member
        # a plain User (left the guild, webhook) says nothing about the guild nickname
        self.writer.submit_member(member, nickname_known=isinstance(user, discord.Member))

    # ----------------------------------------------------------------- messages

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if not self._storable(message):
            return
        assert message.guild is not None
        self.member_seen(message.author, message.guild.id)
        stored = to_chat_message(message, max_chars=self.settings.max_message_chars)
        self.writer.submit(stored)

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        message = payload.message
        if payload.guild_id is None or not self._storable(message):
            return
        edited = to_chat_message(message, max_chars=self.settings.max_message_chars)
        self.writer.submit_edit(edited)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        if payload.guild_id is not None:
            self.writer.submit_delete(payload.guild_id, payload.message_id)

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        if payload.guild_id is not None:
            for message_id in payload.message_ids:
                self.writer.submit_delete(payload.guild_id, message_id)

    # ----------------------------------------------------------------- directory

    @commands.Cog.listener()
    async def on_member_join(self, member: discord.Member) -> None:
        self.member_seen(member, member.guild.id)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        self.member_seen(after, after.guild.id)

    @commands.Cog.listener()
    async def on_user_update(self, before: discord.User, after: discord.User) -> None:
        for guild in after.mutual_guilds:
            member = guild.get_member(after.id)
            if member is not None:
                self.member_seen(member, guild.id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        self._guild_seen(guild)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        self._guild_seen(guild)
        if self.bot.is_ready():
            self._start_backfill([guild])

    @commands.Cog.listener()
    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        if before.name != after.name:
            self.writer.submit_guild(after.id, clean_name(after.name))

    @commands.Cog.listener()
    async def on_guild_channel_create(self, channel: discord.abc.GuildChannel) -> None:
        self._channel_seen(channel)

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        if before.name != after.name:
            self._channel_seen(after)

    def _channel_seen(self, channel: discord.abc.GuildChannel) -> None:
        self.writer.submit_guild(
            channel.guild.id, None, [(channel.id, clean_name(channel.name) or "")]
        )

    def _guild_seen(self, guild: discord.Guild) -> None:
        channels = [(channel.id, clean_name(channel.name) or "") for channel in guild.text_channels]
        self.writer.submit_guild(guild.id, clean_name(guild.name), channels)
        for member in guild.members:
            self.member_seen(member, guild.id)

    # ----------------------------------------------------------------- backfill

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # READY also follows a reconnect with a fresh session: catching up again is cheap
        # because each channel starts after its newest stored message. The first READY of the
        # process also reconciles the retention window (deletes made while we were offline).
        self._start_backfill(self.bot.guilds)

    def _start_backfill(self, guilds: Sequence[discord.Guild]) -> None:
        if self.backfill_task is not None and not self.backfill_task.done():
            return
        self.backfill_task = asyncio.create_task(self._backfill(guilds), name="backfill")

    async def _backfill(self, guilds: Sequence[discord.Guild]) -> int:
        reconcile = [guild for guild in guilds if guild.id not in self._reconciled]
        try:
            for guild in guilds:  # know every guild's ignored channels before reading history
                await self.memory.guild_settings.refresh(guild.id)
            total = await self.backfiller.run(reconcile, reconcile=True)
            self._reconciled.update(guild.id for guild in reconcile)
            total += await self.backfiller.run([g for g in guilds if g not in reconcile])
        except Exception:
            _log.exception("backfill failed")
            return 0
        _log.info("backfill done: %d messages", total)
        return total

    async def backfill_done(self) -> int:
        """Wait for the running backfill (tests, admin tools); 0 when none ran."""
        task = self.backfill_task
        return await task if task is not None else 0


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(IngestCog(bot, bot.memory))
