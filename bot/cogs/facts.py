"""Facts cog: the memory commands as slash commands (/remember, /forget, /whois; `/memory undo`
lives in the `/memory` group cog). Freeform ones ("Bot, remember that alice is Sergey") are
messages addressed to the bot, answered by the replies cog through `Conversation.answer`.

Only translation lives here: discord.py objects in, `MemoryCommands.slash` does the work, its
reply goes out with every mention disabled.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.convert import to_member
from bot.interactions import followup_in_parts
from memory.ports import COMMAND_FAILED, FrontDoor

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)


class FactsCog(commands.Cog, name="Facts"):
    """Remember, forget and what-do-you-know, for messages and slash commands."""

    def __init__(self, bot: commands.Bot | commands.AutoShardedBot, memory: FrontDoor) -> None:
        self.bot = bot
        self.memory = memory

    # --- slash commands ---------------------------------------------------------------------

    @app_commands.command(name="remember", description="Remember a fact about a member")
    @app_commands.describe(user="Who the fact is about", fact="The fact, e.g. 'likes green tea'")
    @app_commands.guild_only()
    async def remember_command(
        self, interaction: discord.Interaction, user: discord.Member, fact: str
    ) -> None:
        await self._slash(interaction, "remember", user, fact)

    @app_commands.command(name="forget", description="Forget a fact about a member")
    @app_commands.describe(user="Who the fact is about", fact="What to forget")
    @app_commands.guild_only()
    async def forget_command(
        self, interaction: discord.Interaction, user: discord.Member, fact: str
    ) -> None:
        await self._slash(interaction, "forget", user, fact)

    @app_commands.command(name="whois", description="What the bot knows about a member")
    @app_commands.describe(user="The member")
    @app_commands.guild_only()
    async def whois_command(self, interaction: discord.Interaction, user: discord.Member) -> None:
        await self._slash(interaction, "whois", user, None)

    async def _slash(
        self,
        interaction: discord.Interaction,
        kind: str,
        user: discord.Member | discord.User,
        fact: str | None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # guild_only
        # Merges call a model; answer within Discord's 3 seconds by deferring first.
        await interaction.response.defer(thinking=True)
        result = await self.memory.commands.slash(
            kind,
            guild_id,
            to_member(interaction.user, guild_id),
            to_member(user, guild_id),
            fact,
            can_manage_guild=interaction.permissions.manage_guild,
        )
        await followup_in_parts(interaction, result.reply or COMMAND_FAILED)


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(FactsCog(bot, bot.memory))
