"""The /memory group: one guild-only group cog holding the member and admin subcommands, and
admin subcommands that check Manage Server themselves."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.checks import NeedsManageServer, manage_server_only
from bot.cogs.memory_group import MemoryGroupCog
from memory.core.clock import SystemClock
from memory.ports import FrontDoor

# Constructing the cog reads only the clock of its front door (its commands are only
# inspected here, never run): a stand-in with that one attribute, cast to what the cog takes.
_MEMORY = cast("FrontDoor", SimpleNamespace(clock=SystemClock()))


def _bot() -> commands.Bot:
    """A real bot, never connected: the cog is only constructed and its commands inspected."""
    return commands.Bot(command_prefix="!", intents=discord.Intents.none())


def test_group_is_guild_only_and_holds_every_subcommand() -> None:
    cog = MemoryGroupCog(_bot(), memory=_MEMORY)
    group = cog.app_command
    assert isinstance(group, app_commands.Group)
    assert group.name == "memory"
    assert group.guild_only
    assert {c.name for c in group.commands} >= {
        "undo",
        "stats",
        "context",
        "purge",
        "settings",
        "mine",
        "optout",
        "optin",
    }


def test_admin_subcommands_check_manage_server_and_member_ones_do_not() -> None:
    cog = MemoryGroupCog(_bot(), memory=_MEMORY)
    group = cog.app_command
    assert isinstance(group, app_commands.Group)
    checked = {c.name for c in group.commands if isinstance(c, app_commands.Command) and c.checks}
    assert checked == {"stats", "context", "settings"}


class _Interaction:
    def __init__(self, manage_guild: bool) -> None:
        self.permissions = discord.Permissions(manage_guild=manage_guild)
        self.command = type("Command", (), {"name": "stats"})()


def test_manage_server_check_raises_a_polite_refusal() -> None:
    @manage_server_only()
    async def command(interaction: discord.Interaction) -> None:
        """Never run; only its check is."""

    # discord.py's check decorators keep the checks on the function until it becomes a
    # command; its types do not declare that attribute.
    [check] = command.__discord_app_commands_checks__  # type: ignore[attr-defined]
    assert check(_Interaction(manage_guild=True)) is True
    try:
        check(_Interaction(manage_guild=False))
    except NeedsManageServer as refused:
        assert "Manage Server" in str(refused) and "/memory stats" in str(refused)
    else:
        raise AssertionError("a member without Manage Server passed the check")
