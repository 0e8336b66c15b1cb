"""A Discord message addressed to the bot, translated for `Conversation.answer`, and the
channel its answer goes back to.

Only translation lives here: whether the message is addressed to the bot (its name, a mention,
or a reply to it), the message it answers, who is mentioned and whose eyes the answer is for.
What is answered, and in which words, is decided in memory (memory/ports/conversation.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator

import discord

from bot.convert import to_member
from bot.interactions import reply_in_parts
from bot.readers import ChannelReaders
from memory.core.surrogates import clean_text
from memory.language import addressed_text
from memory.ports import Addressed, Answer, AnswerKind, IncomingMessage, RepliedMessage

_log = logging.getLogger(__name__)


async def addressed(
    message: discord.Message, *, bot_user_id: int, bot_name: str, readers: ChannelReaders
) -> Addressed | None:
    """The message as the use case takes it; None when it is not addressed to the bot."""
    assert message.guild is not None
    referenced = await _referenced(message, fetch=False)
    reply_to_bot = referenced is not None and referenced.author.id == bot_user_id
    text = addressed_text(
        clean_text(message.content),  # lone surrogates and NUL never reach memory
        bot_name=bot_name,
        bot_user_id=bot_user_id,
        reply_to_bot=reply_to_bot,
    )
    if text is None:
        return None
    if message.reference is not None and referenced is None:
        referenced = await _referenced(message, fetch=True)
    author = message.author
    # Words from a restricted channel only where every reader of this channel may read them.
    viewer = readers.reply_viewer(message.guild, author, message.channel)  # type: ignore[arg-type]
    return Addressed(
        message=IncomingMessage(
            guild_id=message.guild.id,
            channel_id=message.channel.id,
            message_id=message.id,
            author_id=author.id,
            author_name=clean_text(author.display_name),
            content=text,
            mention_ids=tuple(user.id for user in message.mentions),
            viewer=viewer,
        ),
        author=to_member(author, message.guild.id),
        replied_to=None if reply_to_bot else _replied(referenced),
        can_manage_guild=isinstance(author, discord.Member)
        and author.guild_permissions.manage_guild,
        mentions=[
            to_member(user, message.guild.id) for user in message.mentions if user.id != bot_user_id
        ],
    )


async def _referenced(message: discord.Message, *, fetch: bool) -> discord.Message | None:
    reference = message.reference
    if reference is None or reference.message_id is None:
        return None
    resolved = reference.resolved or reference.cached_message
    if isinstance(resolved, discord.Message):
        return resolved
    if not fetch:
        return None
    try:
        return await message.channel.fetch_message(reference.message_id)
    except discord.HTTPException:
        return None


def _replied(message: discord.Message | None) -> RepliedMessage | None:
    if message is None or not (message.content or "").strip():
        return None
    author = message.author
    return RepliedMessage(
        content=message.content,
        author_id=author.id,
        author_name=getattr(author, "display_name", None) or author.name,
        message_id=message.id,
    )


class ChannelPacing:
    """At most one reply per channel per REPLY_COOLDOWN_SECONDS: a later one waits out the
    rest instead of being dropped (never silence)."""

    def __init__(self, cooldown_seconds: float) -> None:
        self._cooldown = cooldown_seconds
        self._last: dict[int, float] = {}

    async def wait(self, channel_id: int) -> None:
        last = self._last.get(channel_id)
        remaining = 0.0 if last is None else self._cooldown - (time.monotonic() - last)
        if remaining > 0:
            await asyncio.sleep(remaining)

    def replied(self, channel_id: int) -> None:
        self._last[channel_id] = time.monotonic()


class ChannelOutlet:
    """The answer to one Discord message: a reply to it (split at 2000 characters), no pings."""

    optin_command = "`/memory optin`"

    def __init__(self, message: discord.Message, pacing: ChannelPacing) -> None:
        self._message = message
        self._pacing = pacing

    def working(self, *, show: bool) -> contextlib.AbstractAsyncContextManager[None]:
        return _typing_beside(self._message.channel, show=show)

    async def send(self, answer: Answer) -> int | None:
        channel_id = self._message.channel.id
        paced = answer.kind is AnswerKind.REPLY
        if paced:
            await self._pacing.wait(channel_id)
        try:
            sent = await reply_in_parts(self._message, answer.text)
        except discord.HTTPException:
            _log.exception("could not send the answer to message %s", self._message.id)
            return None
        finally:
            if paced:
                self._pacing.replied(channel_id)
        return None if sent is None else sent.id


@contextlib.asynccontextmanager
async def _typing_beside(channel: discord.abc.Messageable, *, show: bool) -> AsyncIterator[None]:
    """The typing indicator while working (when `show`), without waiting for Discord to
    acknowledge it before the work starts (one round trip per reply, queued behind every other
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
