"""Per-guild settings kept in memory, so hot paths never wait on the database."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from typing import Any

import asyncpg

from db import guilds as guild_store
from db.search_config import text_search_configs
from memory.core.events import EventBus, GuildChanged
from memory.guilds._settings import (
    GuildDefaults,
    GuildSettings,
    _from_stored,
    load_guild_settings,
    update_guild_settings,
)

_log = logging.getLogger(__name__)


class GuildSettingsCache:
    """Per-guild settings kept in memory so hot paths (every message) never wait on the
    database: `peek` is synchronous; `refresh` runs on start-up, on guild join, after an admin
    change, and whenever an entry is older than `ttl` seconds (other processes' changes)."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        defaults: GuildDefaults,
        *,
        ttl: float = 300.0,
        events: EventBus | None = None,
    ) -> None:
        self._pool = pool
        self._defaults = defaults
        self._ttl = ttl
        # Every guild the process has read, never evicted: `peek` answers from here without
        # waiting, and an evicted guild would get the defaults (its ignored channels stored,
        # its opted-in mode read as 'everyone') until a refresh. An entry is a few hundred bytes,
        # and the guilds are those the process serves (issue 46: 10,000 per shard measured).
        self._entries: dict[int, tuple[float, GuildSettings]] = {}
        self._refreshing: dict[int, asyncio.Task[GuildSettings]] = {}
        # Told every admin change (GuildChanged): the context manager drops warm contexts.
        self._events = events or EventBus()

    async def channel_names(self, guild_id: int, channel_ids: Iterable[int]) -> dict[int, str]:
        """Names of the guild's channels as imports and Discord told them (unknown: absent)."""
        return await guild_store.channel_names(self._pool, guild_id, channel_ids)

    async def guild_names(self, guild_ids: Iterable[int]) -> dict[int, str]:
        """Names of guilds as Discord told them (unknown or unnamed: absent)."""
        return await guild_store.guild_names(self._pool, guild_ids)

    async def channels(self, guild_id: int) -> dict[int, str]:
        """Every channel of the guild known by name or by a visibility mark: id -> name."""
        return await guild_store.guild_channels(self._pool, guild_id)

    async def channels_named(self, guild_id: int, name: str) -> list[int]:
        """Ids of the guild's channels called `name` ("general" or "#general")."""
        return await guild_store.channels_named(self._pool, guild_id, name)

    def _default(self, guild_id: int) -> GuildSettings:
        return _from_stored(guild_id, self._defaults.default_timezone, {}, self._defaults)

    def peek(self, guild_id: int) -> GuildSettings:
        """What is known now (defaults for an unknown guild); schedules a refresh when stale."""
        entry = self._entries.get(guild_id)
        if entry is None or time.monotonic() - entry[0] > self._ttl:
            self._schedule(guild_id)
        return entry[1] if entry is not None else self._default(guild_id)

    async def get(self, guild_id: int) -> GuildSettings:
        """Fresh-enough settings, reading the database when the entry is missing or stale."""
        entry = self._entries.get(guild_id)
        if entry is not None and time.monotonic() - entry[0] <= self._ttl:
            return entry[1]
        return await self.refresh(guild_id)

    async def refresh(self, guild_id: int) -> GuildSettings:
        began = time.monotonic()
        settings = await load_guild_settings(self._pool, guild_id, self._defaults)
        entry = self._entries.get(guild_id)
        # Stored while this read ran (an admin's change): newer than what this read saw, so a
        # refresh that ends after it does not put the old settings back.
        if entry is not None and entry[0] >= began:
            return entry[1]
        self.store(settings)
        return settings

    async def search_configs(self) -> list[str]:
        """Text search configurations an admin may choose from (`/memory settings`)."""
        return await text_search_configs(self._pool)

    async def update(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Apply an admin's changes (see `update_guild_settings`); everyone sees them at once."""
        current = await update_guild_settings(self._pool, guild_id, self._defaults, **changes)
        self.store(current)
        await self._events.publish(GuildChanged(guild_id))
        return current

    def store(self, settings: GuildSettings) -> None:
        """Record settings just written (the admin cog) without another read."""
        self._entries[settings.guild_id] = (time.monotonic(), settings)

    def _schedule(self, guild_id: int) -> None:
        if guild_id in self._refreshing:
            return
        task = asyncio.ensure_future(self.refresh(guild_id))
        self._refreshing[guild_id] = task
        task.add_done_callback(lambda done: self._finished(guild_id, done))

    def _finished(self, guild_id: int, task: asyncio.Task[GuildSettings]) -> None:
        self._refreshing.pop(guild_id, None)
        if not task.cancelled() and task.exception() is not None:
            _log.warning("guild %s settings refresh failed: %s", guild_id, task.exception())

    async def aclose(self) -> None:
        for task in list(self._refreshing.values()):
            task.cancel()
        self._refreshing.clear()
