"""Small Discord-side helpers every cog shares: answering an interaction whether or not it was
deferred, code blocks that cannot be broken out of, and the no-pings policy."""

from __future__ import annotations

import discord

from memory.core.split import reply_parts

NO_PINGS = discord.AllowedMentions.none()
MESSAGE_LIMIT = 2000


async def reply_in_parts(message: discord.Message, text: str) -> discord.Message | None:
    """Reply with at most MAX_PARTS Discord messages (the first as a reply, the rest after
    it); the last message sent, or None when there was nothing to say."""
    parts = reply_parts(text)
    if not parts:
        return None
    sent = await message.reply(parts[0], mention_author=False, allowed_mentions=NO_PINGS)
    for part in parts[1:]:
        sent = await message.channel.send(part, allowed_mentions=NO_PINGS)
    return sent


async def followup_in_parts(interaction: discord.Interaction, text: str) -> None:
    for part in reply_parts(text):
        await interaction.followup.send(part, allowed_mentions=NO_PINGS)


async def respond(interaction: discord.Interaction, text: str, *, ephemeral: bool = True) -> None:
    """Answer once: the response when nothing was sent yet, else a follow-up (after a defer)."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=ephemeral, allowed_mentions=NO_PINGS)
    else:
        await interaction.response.send_message(
            text, ephemeral=ephemeral, allowed_mentions=NO_PINGS
        )


def code_block(text: str) -> str:
    """Text inside a code block that it cannot break out of."""
    return "```\n" + text.replace("```", "`\u200b``") + "\n```"


def fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
