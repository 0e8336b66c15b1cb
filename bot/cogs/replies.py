"""Replies cog: every guild message joins its channel's conversation window, and a message
addressed to the bot (its name, a mention, or a reply to it) is answered.

Translation only: the message becomes an `Addressed` (bot/addressed.py) and
`Conversation.answer` decides everything else (a memory command, consent, "what did I miss?",
rate limits, a reply from memory); the answer goes back as a reply in the channel, split at 2000
characters, with a typing indicator, no pings, and at most one reply per channel per cooldown.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.addressed import ChannelOutlet, ChannelPacing, addressed
from bot.readers import ChannelReaders
from memory.core.surrogates import clean_text
from memory.core.viewer import Viewer
from memory.ports import FrontDoor, IncomingMessage
from memory.ports.conversation import Conversation

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)


def incoming(message: discord.Message, viewer: Viewer | None = None) -> IncomingMessage:
    """The message as memory sees it; `viewer` is whose eyes it is for."""
    assert message.guild is not None
    return IncomingMessage(
        guild_id=message.guild.id,
        channel_id=message.channel.id,
        message_id=message.id,
        author_id=message.author.id,
        author_name=clean_text(message.author.display_name),
        content=clean_text(message.content),
        mention_ids=tuple(user.id for user in message.mentions),
        viewer=viewer,
    )


class RepliesCog(commands.Cog, name="Replies"):
    """Conversation: memories of the people involved plus the channel's recent window."""

    def __init__(
        self,
        bot: commands.Bot | commands.AutoShardedBot,
        memory: FrontDoor,
        readers: ChannelReaders | None = None,
    ) -> None:
        self.bot = bot
        self.memory = memory
        self.readers = readers or ChannelReaders()
        self.conversation: Conversation = memory.conversation
        self._pacing = ChannelPacing(memory.settings.reply_cooldown_seconds)

    async def cog_load(self) -> None:
        if self.bot.user is not None:
            self.conversation.bot_user_id = self.bot.user.id

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        if self.bot.user is not None:
            self.conversation.bot_user_id = self.bot.user.id

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Every member message joins the channel's window (the bot's own are added on send);
        one addressed to the bot is then answered."""
        if message.guild is None or message.author.bot or self.bot.user is None:
            return
        if self.memory.guild_settings.peek(message.guild.id).ignores(message.channel.id):
            return  # an admin excluded this channel: the bot neither stores nor answers here
        if message.content:
            try:
                seen_by = Viewer.of_channels(message.author.id, {message.channel.id})
                await self.memory.window.observe(incoming(message, viewer=seen_by))
            except Exception:
                _log.exception("could not add message %s to the window", message.id)
        asked = await addressed(
            message,
            bot_user_id=self.bot.user.id,
            bot_name=self.memory.settings.bot_name,
            readers=self.readers,
        )
        if asked is not None:
            await self.conversation.answer(asked, ChannelOutlet(message, self._pacing))

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        """The window keeps an edited message's new text, never the old one."""
        if payload.guild_id is None:
            return
        try:
            await self.memory.window.message_edited(
                payload.guild_id, payload.message_id, clean_text(payload.message.content)
            )
        except Exception:
            _log.exception("could not update edited message %s in the window", payload.message_id)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """A deleted message leaves the window (with the bot's answer to it)."""
        if payload.guild_id is not None:
            await self.memory.window.messages_deleted([payload.message_id])

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        if payload.guild_id is not None:
            await self.memory.window.messages_deleted(list(payload.message_ids))


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(RepliesCog(bot, bot.memory, bot.readers))
