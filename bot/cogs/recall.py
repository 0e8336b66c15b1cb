"""Recall cog: `/recall` finds something said in this server again (results only you see,
with jump links to the messages), only in the channels you can read now."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.reach import Reach
from bot.interactions import MESSAGE_LIMIT, fit, respond
from memory.ports import RecallHit

if TYPE_CHECKING:
    from bot.client import MemoryBot


def render_hits(hits: list[RecallHit], guild_id: int) -> str:
    if not hits:
        return "I found nothing about that."
    lines = []
    for hit in hits:
        when = hit.at.strftime("%Y-%m-%d") if hit.at else hit.day
        name = discord.utils.escape_markdown(hit.author_name)
        text = discord.utils.escape_markdown(fit(" ".join(hit.text.split()), 300))
        link = hit.jump_url(guild_id)
        lines.append(f"**{when}** {name}: {text}" + (f" ([jump]({link}))" if link else ""))
    return fit("\n".join(lines), MESSAGE_LIMIT)


class RecallCog(commands.Cog, name="Recall"):
    """Search what was said, by question."""

    def __init__(self, reach: Reach) -> None:
        self.bot, self.memory, self.readers = reach

    @app_commands.command(name="recall", description="Find something said in this server")
    @app_commands.describe(query="What to look for, e.g. 'when did sam go climbing?'")
    @app_commands.guild_only()
    async def recall(self, interaction: discord.Interaction, query: str) -> None:
        assert interaction.guild_id is not None and interaction.guild is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        # Ephemeral: only the asking member sees it, so everything they can read.
        viewer = self.readers.search_viewer(interaction.guild, interaction.user)
        hits = await self.memory.recall.search(interaction.guild_id, query, limit=5, viewer=viewer)
        await respond(interaction, render_hits(hits, interaction.guild_id))


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(RecallCog(Reach.of(bot)))
