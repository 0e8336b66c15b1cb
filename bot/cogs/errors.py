"""Errors cog: the one place where a failed app command becomes an answer, a log line and a
telemetry event, so command bodies hold no catch-alls."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.checks import NeedsManageServer
from bot.interactions import respond
from memory.ports import FrontDoor

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)

FAILED = "Sorry, something went wrong while handling that. The error has been logged."
SERVER_ONLY = "This only works in a server."


class ErrorsCog(commands.Cog, name="Errors"):
    """Answers every failed slash command; installs itself as the command tree's error hook."""

    def __init__(self, bot: commands.Bot | commands.AutoShardedBot, memory: FrontDoor) -> None:
        self.bot = bot
        self.memory = memory
        self._previous: Any = None

    async def cog_load(self) -> None:
        self._previous = self.bot.tree.on_error
        self.bot.tree.on_error = self.on_app_command_error  # type: ignore[method-assign]

    async def cog_unload(self) -> None:
        self.bot.tree.on_error = self._previous  # type: ignore[method-assign]

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        command = interaction.command.qualified_name if interaction.command else "?"
        if isinstance(error, NeedsManageServer):
            self._emit(interaction, command, "refused")
            await self._answer(interaction, str(error))
            return
        if isinstance(error, app_commands.NoPrivateMessage):
            await self._answer(interaction, SERVER_ONLY)
            return
        original = getattr(error, "original", error)
        _log.error("/%s failed", command, exc_info=original)
        self._emit(interaction, command, "error", error=f"{type(original).__name__}"[:200])
        await self._answer(interaction, FAILED)

    def _emit(
        self, interaction: discord.Interaction, command: str, outcome: str, **fields: Any
    ) -> None:
        root, _, sub = command.partition(" ")
        op, name = ("admin", sub) if root == "memory" else ("command", root)
        self.memory.telemetry.emit(
            op,
            outcome=outcome,
            command=name,
            guild_id=interaction.guild_id,
            actor_id=interaction.user.id,
            **fields,
        )

    async def _answer(self, interaction: discord.Interaction, text: str) -> None:
        try:
            await respond(interaction, text)
        except discord.HTTPException:
            _log.warning("could not tell the member that /%s failed", interaction.command)


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(ErrorsCog(bot, bot.memory))
