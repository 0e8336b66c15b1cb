"""Names for ids, and ids for names, from the database when it is reachable.

`memorybot telemetry tail` shows guilds and members by name and filters by name; telemetry
itself keeps ids only. This is a small synchronous facade (the tail loop is synchronous) over
its own event loop and a two-connection pool, opened with a short wait so a tail never hangs
on an unreachable database: then the caller shows ids.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from contextlib import AsyncExitStack
from typing import Any

import asyncpg

from memory.core.settings import Settings
from memory.database import DatabaseUnavailable, embedded_exists, open_configured_database
from memory.guilds import GuildDefaults, GuildSettingsCache
from memory.members import MemberDirectory
from memory.privacy import PrivacyError, resolve_guild, resolve_subject


class NameLookup:
    """Guild and member names by id (cached); `open()` raises DatabaseUnavailable."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        # Its own loop, never installed as the current one: callers may have theirs.
        self._runner = asyncio.Runner(loop_factory=asyncio.new_event_loop)
        self._stack = AsyncExitStack()
        self._pool: asyncpg.Pool | None = None
        self._guilds: dict[int, str | None] = {}
        self._members: dict[tuple[int, int], str | None] = {}

    def open(self, *, wait_seconds: float = 5.0) -> NameLookup:
        if not embedded_exists(self._settings):
            raise DatabaseUnavailable(f"no database in {self._settings.data_dir}")
        try:
            self._pool = self._runner.run(self._open(wait_seconds))
        except TimeoutError:
            self.close()
            raise DatabaseUnavailable(
                f"the database did not answer within {wait_seconds}s"
            ) from None
        except BaseException:
            self.close()
            raise
        return self

    async def _open(self, wait_seconds: float) -> asyncpg.Pool:
        async with asyncio.timeout(wait_seconds):
            return await self._stack.enter_async_context(
                open_configured_database(self._settings, min_size=1, max_size=2)
            )

    def close(self) -> None:
        try:
            self._runner.run(self._stack.aclose())
        finally:
            self._runner.close()

    def _run(self, coroutine: Any) -> Any:
        return self._runner.run(coroutine)

    def guild_name(self, guild_id: int) -> str | None:
        if guild_id not in self._guilds:
            assert self._pool is not None
            self._guilds.update(dict.fromkeys([guild_id]))
            guilds = GuildSettingsCache(self._pool, GuildDefaults.from_settings(self._settings))
            self._guilds.update(self._run(guilds.guild_names([guild_id])))
        return self._guilds[guild_id]

    def member_names(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Fetch the names of many (guild, user) pairs at once (one query per guild)."""
        missing: dict[int, list[int]] = {}
        for guild_id, user_id in pairs:
            if (guild_id, user_id) not in self._members:
                missing.setdefault(guild_id, []).append(user_id)
        if missing and self._pool is not None:
            self._run(self._fetch_members(missing))

    async def _fetch_members(self, missing: dict[int, list[int]]) -> None:
        assert self._pool is not None
        directory = MemberDirectory(self._pool)
        for guild_id, user_ids in missing.items():
            known = await directory.get(guild_id, user_ids)
            for user_id in user_ids:
                member = known.get(user_id)
                self._members[(guild_id, user_id)] = member.display_name if member else None

    def member_name(self, guild_id: int, user_id: int) -> str | None:
        self.member_names([(guild_id, user_id)])
        return self._members.get((guild_id, user_id))

    def guild_id(self, text: str) -> int:
        """A guild id from an id or an exact name (ValueError naming the problem)."""
        assert self._pool is not None
        try:
            return int(self._run(resolve_guild(self._pool, text)))
        except PrivacyError as exc:
            raise ValueError(str(exc)) from None

    def user_id(self, guild_id: int, text: str) -> int:
        """A member id from an id, a mention or a name in that guild (ValueError otherwise)."""
        assert self._pool is not None
        try:
            return int(self._run(resolve_subject(self._pool, guild_id, text)).user_id)
        except PrivacyError as exc:
            raise ValueError(str(exc)) from None
