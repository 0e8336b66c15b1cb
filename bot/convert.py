"""discord.py objects -> memorybot domain types (ChatMessage, Member).

The only place that knows how Discord shapes a message: ids stay ids (mentions are stored as
ids and turned into names only when a prompt is built), attachments, embeds and stickers become
text surrogates so summaries can see that "alice posted a picture".
"""

from __future__ import annotations

import discord

from memory.core.models import ChatMessage, Member
from memory.core.surrogates import (
    attachment_surrogate,
    clean_name,
    compose_content,
    embed_is_link_preview,
    embed_surrogate,
    sticker_surrogate,
)

# Messages people write; joins, pins, boosts and other system notices are not conversation.
STORABLE_TYPES = frozenset({discord.MessageType.default, discord.MessageType.reply})


def is_storable(message: discord.Message, *, self_id: int | None, include_bots: bool) -> bool:
    """Guild conversation worth remembering: never the bot's own words, other bots' (and
    webhooks') only when configured."""
    if message.guild is None or message.type not in STORABLE_TYPES:
        return False
    if self_id is not None and message.author.id == self_id:
        return False
    return include_bots or not message.author.bot


def surrogates(message: discord.Message) -> list[str]:
    """Text stand-ins for everything in the message besides its text."""
    parts: list[str] = [
        attachment_surrogate(attachment.filename, attachment.content_type, attachment.description)
        for attachment in message.attachments
    ]
    for embed in message.embeds:
        if embed_is_link_preview(embed.url, message.content):
            continue
        text = embed_surrogate(title=embed.title, description=embed.description, url=embed.url)
        if text:
            parts.append(text)
    parts += [sticker_surrogate(sticker.name) for sticker in message.stickers]
    return parts


def mention_ids(message: discord.Message) -> tuple[int, ...]:
    """Users named in the text, in order, without repeats (a reply's ping is not a mention)."""
    return tuple(dict.fromkeys(message.raw_mentions))


def to_chat_message(message: discord.Message, *, max_chars: int) -> ChatMessage:
    """The stored form of a guild message (call `is_storable` first)."""
    if message.guild is None:
        raise ValueError("only guild messages are stored")
    reply_to = None
    if message.type is discord.MessageType.reply and message.reference is not None:
        reply_to = message.reference.message_id
    return ChatMessage(
        message_id=message.id,
        guild_id=message.guild.id,
        channel_id=message.channel.id,
        author_id=message.author.id,
        content=compose_content(message.content, surrogates(message), max_chars=max_chars),
        created_at=message.created_at,
        reply_to_id=reply_to,
        mention_ids=mention_ids(message),
        author_is_bot=message.author.bot,
        edited_at=message.edited_at,
    )


def to_member(user: discord.Member | discord.User, guild_id: int) -> Member:
    """Directory entry for a user in a guild; a plain User (left the guild, webhook) has no
    nickname."""
    return Member(
        guild_id=guild_id,
        user_id=user.id,
        username=clean_name(user.name),
        global_name=clean_name(user.global_name),
        nickname=clean_name(user.nick) if isinstance(user, discord.Member) else None,
        is_bot=user.bot,
    )
