"""Help cog: `/help` lists what the bot does and its commands, only to the member who asks.

The slash commands are read from the command tree, so the list is complete whatever cogs are
loaded; the freeform phrases are the ones the README's "Using the bot" table shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.interactions import MESSAGE_LIMIT, fit, respond

if TYPE_CHECKING:
    from bot.client import MemoryBot


def command_lines(tree: app_commands.CommandTree) -> list[str]:
    """One line per slash command (a group's subcommands each get theirs), by name."""
    lines = []
    for command in sorted(tree.get_commands(), key=lambda found: found.name):
        if isinstance(command, app_commands.Group):
            for sub in sorted(command.commands, key=lambda found: found.name):
                lines.append(f"`/{command.name} {sub.name}`: {sub.description}")
        elif isinstance(command, app_commands.Command):
            lines.append(f"`/{command.name}`: {command.description}")
    return lines


def help_text(bot_name: str, tree: app_commands.CommandTree) -> str:
    name = discord.utils.escape_markdown(bot_name)
    lines = [
        f"**{name}** remembers the people of this server. Start a message with "
        f'"{name}", mention it or reply to it:',
        f"- `{name} remember that alice loves climbing` (or reply to a message: "
        f"`{name}, remember this about bob`)",
        f"- `{name} forget that alice likes pizza`",
        f"- `{name} what do you know about alice?`, `{name} who am I?`",
        "- anything else: a reply that knows who is talking",
        "**Slash commands**",
        *command_lines(tree),
        "Stats, context, purge and settings need Manage Server; forgetting about someone else "
        "needs it too, unless a server allows it. The bot never pings anyone.",
    ]
    return fit("\n".join(lines), MESSAGE_LIMIT)


class HelpCog(commands.Cog, name="Help"):
    """`/help`: the bot's commands, ephemeral."""

    def __init__(self, bot: MemoryBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What this bot does and its commands")
    async def help_command(self, interaction: discord.Interaction) -> None:
        bot_name = self.bot.memory.settings.bot_name
        await respond(interaction, help_text(bot_name, self.bot.tree), ephemeral=True)


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(HelpCog(bot))
