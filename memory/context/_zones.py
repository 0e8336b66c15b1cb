"""Guild timezones as the context builder reads them: cached for a few minutes (another
process may change one), an unknown zone name falls back to DEFAULT_TIMEZONE with a warning.
"""

from __future__ import annotations

import logging
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import asyncpg
from cachetools import TTLCache

from db.guilds import get_timezone

_log = logging.getLogger(__name__)

# A guild's timezone is re-read this often (another process may change it).
ZONE_TTL_SECONDS = 300


class GuildZones:
    """guild id -> IANA timezone name, read through a short-lived cache."""

    def __init__(self, pool: asyncpg.Pool, default_timezone: str) -> None:
        self._pool = pool
        self._default = default_timezone
        self._zones: TTLCache[int, str] = TTLCache(maxsize=10_000, ttl=ZONE_TTL_SECONDS)

    async def timezone(self, guild_id: int) -> str:
        cached = self._zones.get(guild_id)
        if cached is not None:
            return cached
        name = await self._read(guild_id)
        self._zones[guild_id] = name
        return name

    def forget(self, guild_id: int) -> None:
        """The guild's settings changed: read its timezone again next time."""
        self._zones.pop(guild_id, None)

    async def _read(self, guild_id: int) -> str:
        name = await get_timezone(self._pool, guild_id, self._default)
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            _log.warning("guild %s has unknown timezone %r; using default", guild_id, name)
            return self._default
        return name
