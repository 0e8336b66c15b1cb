"""Per-guild settings (timezone, ignored channels, forget policy, memory sources), cached for
hot paths, and channel visibility (which channels everyone can read)."""

from __future__ import annotations

from memory.guilds._cache import GuildSettingsCache
from memory.guilds._settings import (
    GuildDefaults,
    GuildSettings,
    InvalidSetting,
    describe_settings,
    load_guild_settings,
    update_guild_settings,
)
from memory.guilds._visibility import ChannelVisibility

__all__ = [
    "ChannelVisibility",
    "GuildDefaults",
    "GuildSettings",
    "GuildSettingsCache",
    "InvalidSetting",
    "describe_settings",
    "load_guild_settings",
    "update_guild_settings",
]
