"""Per-guild settings (timezone, ignored channels, forget policy), cached for hot paths."""

from __future__ import annotations

from memory.guilds._settings import (
    GuildDefaults,
    GuildSettings,
    GuildSettingsCache,
    InvalidSetting,
    describe_settings,
    load_guild_settings,
    update_guild_settings,
)

__all__ = [
    "GuildDefaults",
    "GuildSettings",
    "GuildSettingsCache",
    "InvalidSetting",
    "describe_settings",
    "load_guild_settings",
    "update_guild_settings",
]
