"""The `/memory` slash command group, shared by every cog that adds a subcommand to it.

The facts cog adds `/memory undo`; the admin cog adds `stats`, `context`, `purge`. Each cog
calls `add_subcommand` in `cog_load` and `remove_subcommand` in `cog_unload`; the group is
created on the bot's command tree by whichever cog comes first and removed with the last
subcommand, so cogs can load in any order and several bots (tests) never share one group.
"""

from __future__ import annotations

import logging

from discord import app_commands

_log = logging.getLogger(__name__)

GROUP_NAME = "memory"
GROUP_DESCRIPTION = "What the bot remembers about members"


def memory_group(tree: app_commands.CommandTree) -> app_commands.Group:
    """The tree's `/memory` group, created (guild-only) on first use."""
    existing = tree.get_command(GROUP_NAME)
    if isinstance(existing, app_commands.Group):
        return existing
    if existing is not None:
        raise RuntimeError(f"/{GROUP_NAME} is already a plain command, not a group")
    group = app_commands.Group(name=GROUP_NAME, description=GROUP_DESCRIPTION, guild_only=True)
    tree.add_command(group)
    return group


def add_subcommand(
    tree: app_commands.CommandTree, command: app_commands.Command | app_commands.Group
) -> None:
    """Attach `command` under `/memory` (replacing a stale one of the same name)."""
    group = memory_group(tree)
    if group.get_command(command.name) is not None:
        group.remove_command(command.name)
    group.add_command(command)


def remove_subcommand(tree: app_commands.CommandTree, name: str) -> None:
    """Detach `/memory name`; the group goes away with its last subcommand."""
    existing = tree.get_command(GROUP_NAME)
    if not isinstance(existing, app_commands.Group):
        return
    existing.remove_command(name)
    if not existing.commands:
        tree.remove_command(GROUP_NAME)
