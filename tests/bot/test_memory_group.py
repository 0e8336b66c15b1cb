"""The shared /memory group: cogs add and remove subcommands in any order without clashing."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.cogs.memory_group import add_subcommand, memory_group, remove_subcommand


async def _noop(interaction: discord.Interaction) -> None:
    """A subcommand body; never invoked here."""


def _command(name: str) -> app_commands.Command:
    return app_commands.Command(name=name, description=name, callback=_noop)


async def test_subcommands_share_one_group_per_tree() -> None:
    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    other = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    add_subcommand(tree, _command("undo"))
    add_subcommand(tree, _command("stats"))
    add_subcommand(other, _command("stats"))
    group = memory_group(tree)
    assert [c.name for c in tree.get_commands()] == ["memory"]
    assert sorted(c.name for c in group.commands) == ["stats", "undo"]
    assert [c.name for c in memory_group(other).commands] == ["stats"]
    assert group.guild_only

    add_subcommand(tree, _command("undo"))  # a reloaded cog replaces its stale command
    remove_subcommand(tree, "undo")
    assert [c.name for c in group.commands] == ["stats"]
    remove_subcommand(tree, "stats")
    assert tree.get_commands() == []
    remove_subcommand(tree, "stats")  # nothing left: harmless
