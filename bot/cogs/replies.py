"""Replies cog: answers messages addressed to the bot that are not memory commands.

The facts cog decides whether a message is addressed to the bot (name, mention or reply) and
whether it is a memory command; everything else arrives here as `on_addressed_message`. Every
guild message also feeds the channel's conversation window. Replies go out split at 2000
characters, with a typing indicator, no pings, and at most one per channel per cooldown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import discord
from cachetools import LRUCache
from discord.ext import commands

from bot.interactions import NO_PINGS
from bot.readers import ChannelReaders
from memory.core.keyed_lock import KeyedLock
from memory.core.ratelimit import Admission
from memory.core.split import reply_parts
from memory.core.surrogates import clean_text
from memory.core.viewer import Viewer
from memory.ports import FrontDoor, IncomingMessage, asks_catch_up
from memory.ports.conversation import Conversation

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)

APOLOGY = "Sorry, I couldn't come up with an answer just now. Please try again in a moment."
SLOW_DOWN = "That's a lot at once - give me a minute before the next one."
# To a member who opted out and addresses the bot: a message reply cannot be ephemeral, so it
# is one short line in the channel rather than silence (which reads as the bot being broken).
NOT_REMEMBERED = (
    "You opted out here, so I don't remember you or answer from memory; "
    "`/memory optin` lets me remember you again."
)
OPT_IN_HINT = (
    "(This server keeps memories only of members who agreed: I won't remember you here unless"
    " you run `/memory optin`.)"
)


def incoming(
    message: discord.Message, content: str | None = None, viewer: Viewer | None = None
) -> IncomingMessage:
    """The message as memory sees it; `viewer` is whose eyes the reply is for."""
    assert message.guild is not None
    return IncomingMessage(
        guild_id=message.guild.id,
        channel_id=message.channel.id,
        message_id=message.id,
        author_id=message.author.id,
        author_name=clean_text(message.author.display_name),
        content=clean_text(message.content if content is None else content),
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
        # One reply at a time per channel; locks of quiet channels are dropped.
        self._locks = KeyedLock()
        # Members told how to opt in (once each, per process).
        self._hinted: LRUCache[tuple[int, int], bool] = LRUCache(maxsize=50_000)
        self._last_reply: dict[int, float] = {}

    async def cog_load(self) -> None:
        if self.bot.user is not None:
            self.conversation.bot_user_id = self.bot.user.id

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        if self.bot.user is not None:
            self.conversation.bot_user_id = self.bot.user.id

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Every member message joins the channel's window (the bot's own are added on send)."""
        if message.guild is None or message.author.bot or not message.content:
            return
        if self.memory.conversation.cached_settings(message.guild.id).ignores(message.channel.id):
            return
        try:
            seen_by = Viewer.of_channels(message.author.id, {message.channel.id})
            await self.conversation.hear(incoming(message, viewer=seen_by))
        except Exception:
            _log.exception("could not add message %s to the window", message.id)

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        """The window keeps an edited message's new text, never the old one."""
        if payload.guild_id is None:
            return
        try:
            await self.conversation.message_edited(
                payload.guild_id, payload.message_id, clean_text(payload.message.content)
            )
        except Exception:
            _log.exception("could not update edited message %s in the window", payload.message_id)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """A deleted message leaves the window (with the bot's answer to it)."""
        if payload.guild_id is not None:
            await self.conversation.messages_deleted([payload.message_id])

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        if payload.guild_id is not None:
            await self.conversation.messages_deleted(list(payload.message_ids))

    @commands.Cog.listener()
    async def on_addressed_message(self, message: discord.Message, text: str) -> None:
        if message.guild is None:
            return
        if asks_catch_up(text):  # "Bot, what did I miss?": the episodes cog answers
            self.bot.dispatch("catch_up_request", message)
            return
        channel_id = message.channel.id
        # Words from a restricted channel only where every reader of this channel may read them.
        viewer = self.readers.reply_viewer(message.guild, message.author, message.channel)  # type: ignore[arg-type]
        admission = self.conversation.admission(incoming(message, text, viewer))
        if admission is Admission.SILENT:
            return
        if admission is Admission.WARN:
            with contextlib.suppress(discord.HTTPException):
                await message.reply(SLOW_DOWN, mention_author=False, allowed_mentions=NO_PINGS)
            return
        consent = await self.memory.conversation.consent(message.guild.id, message.author.id)
        if consent is not None and consent.state == "out":
            with contextlib.suppress(discord.HTTPException):
                await message.reply(NOT_REMEMBERED, mention_author=False, allowed_mentions=NO_PINGS)
            return
        async with self._locks.hold(channel_id):
            await self._cooldown(channel_id)
            try:
                # In a burst the answers need Discord's request budget (50 a second for the
                # whole bot): no typing indicator for replies that come within a second anyway.
                indicator = not self.conversation.busy
                async with _typing_beside(message.channel, show=indicator):
                    result = await self.conversation.reply_to(incoming(message, text, viewer))
                parts = reply_parts(result.text) or [APOLOGY]
                parts = await self._with_opt_in_hint(message, parts)
            except Exception as exc:
                _log.exception("reply to message %s failed", message.id)
                self.memory.telemetry.emit(
                    "reply",
                    outcome="error",
                    guild_id=message.guild.id,
                    channel_id=channel_id,
                    error=f"{type(exc).__name__}: {exc}"[:300],
                )
                parts = [APOLOGY]
            await self._send(message, parts)
            self._last_reply[channel_id] = time.monotonic()

    async def _with_opt_in_hint(self, message: discord.Message, parts: list[str]) -> list[str]:
        """In a server that stores only members who opted in, the first reply to a member who
        did not says once how to."""
        assert message.guild is not None
        key = (message.guild.id, message.author.id)
        if (
            self._hinted.get(key)
            or self.memory.conversation.cached_settings(key[0]).storage != "opted-in"
        ):
            return parts
        consent = await self.memory.conversation.consent(*key)
        if consent is not None and consent.state == "in":
            return parts
        self._hinted[key] = True
        return [*parts[:-1], f"{parts[-1]}\n{OPT_IN_HINT}"] if parts else [OPT_IN_HINT]

    async def _cooldown(self, channel_id: int) -> None:
        """Wait out the channel's cooldown instead of dropping the message: never silence."""
        last = self._last_reply.get(channel_id)
        if last is None:
            return
        remaining = self.memory.settings.reply_cooldown_seconds - (time.monotonic() - last)
        if remaining > 0:
            await asyncio.sleep(remaining)

    async def _send(self, message: discord.Message, parts: list[str]) -> None:
        try:
            sent = await message.reply(parts[0], mention_author=False, allowed_mentions=NO_PINGS)
            for part in parts[1:]:
                sent = await message.channel.send(part, allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            _log.exception("could not send the reply to message %s", message.id)
            return
        if self.bot.user is not None and message.guild is not None:
            await self.conversation.hear(
                IncomingMessage(
                    guild_id=message.guild.id,
                    channel_id=message.channel.id,
                    message_id=sent.id,
                    author_id=self.bot.user.id,
                    author_name=self.memory.settings.bot_name,
                    content="\n".join(parts),
                    viewer=Viewer.of_channels(self.bot.user.id, {message.channel.id}),
                    reply_to_id=message.id,
                )
            )


@contextlib.asynccontextmanager
async def _typing_beside(channel: discord.abc.Messageable, *, show: bool) -> AsyncIterator[None]:
    """The typing indicator while composing (when `show`), without waiting for Discord to
    acknowledge it before composing starts (one round trip per reply, queued behind every other
    reply in a burst). Its POST is still done before the answer is sent, so it never arrives
    after it (which would leave the indicator showing)."""
    if not show:
        yield
        return
    typing = channel.typing()
    entering = asyncio.ensure_future(typing.__aenter__())
    try:
        yield
    finally:
        try:
            await entering
        except Exception as exc:  # the indicator is a nicety, never a reason not to answer
            _log.debug("typing indicator failed: %s", type(exc).__name__)
        else:
            await typing.__aexit__(None, None, None)


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(RepliesCog(bot, bot.memory, bot.readers))
