"""App-command checks. A failed check raises; the errors cog turns it into a polite answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import discord
from discord import app_commands

T = TypeVar("T")


class NeedsManageServer(app_commands.CheckFailure):
    """The member lacks Manage Server for an admin command."""

    def __init__(self, command: str) -> None:
        super().__init__(
            "Sorry, only members with the **Manage Server** permission can use"
            f" `/memory {command}`."
        )
        self.command = command


def manage_server_only() -> Callable[[T], T]:
    """Admin commands: Manage Server is checked here, not with Discord's default permissions,
    because `/memory` also holds commands every member may use."""

    def predicate(interaction: discord.Interaction[Any]) -> bool:
        if interaction.permissions.manage_guild:
            return True
        command = interaction.command.name if interaction.command else "?"
        raise NeedsManageServer(command)

    return app_commands.check(predicate)
