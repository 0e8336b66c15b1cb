"""Small Discord-side helpers every cog shares: answering an interaction whether or not it was
deferred, code blocks that cannot be broken out of, and the no-pings policy."""

from __future__ import annotations

import discord

NO_PINGS = discord.AllowedMentions.none()
MESSAGE_LIMIT = 2000


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
