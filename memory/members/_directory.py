"""The member directory as front ends need it: look members up by name or id, list a guild.

Front ends (the console, CLI commands) read names through this instead of the queries, so
`bot/` never touches the database. The reply path's directory keeps the rows it read for a
minute (`cache_seconds`): a reply names its asker, the hits' authors and the members it
mentions, several times over, and a burst of replies read the same rows again and again. A
member's change (a fact or alias, opt-out, purge) drops their row at once, in every process
(`CrossProcessCaches`); a rename shows within the minute, as the name index's does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import asyncpg
from cachetools import TTLCache

from db.members import find_by_name, get_members, list_members
from memory.core.models import Member


class MemberDirectory:
    """Read-only lookups in the `members` directory of one database."""

    def __init__(
        self, pool: asyncpg.Pool, *, cache_seconds: float = 0.0, cache_size: int = 50_000
    ) -> None:
        self._pool = pool
        self._rows: TTLCache[tuple[int, int], Member] | None = (
            TTLCache(maxsize=cache_size, ttl=cache_seconds) if cache_seconds > 0 else None
        )

    async def find(self, guild_id: int, name: str) -> list[Member]:
        """Members answering to `name` (any name or alias, case-insensitive)."""
        return await find_by_name(self._pool, guild_id, name)

    async def get(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, Member]:
        """The members of `user_ids` the directory knows (unknown ids are left out)."""
        if self._rows is None:
            return await get_members(self._pool, guild_id, user_ids)
        found: dict[int, Member] = {}
        missing = []
        for user_id in user_ids:
            cached = self._rows.get((guild_id, user_id))
            if cached is None:
                missing.append(user_id)
            else:
                found[user_id] = cached
        if missing:
            read = await get_members(self._pool, guild_id, missing)
            for user_id, member in read.items():
                self._rows[(guild_id, user_id)] = member
            found |= read
        return found

    def seen(self, sightings: Iterable[tuple[Member, bool]]) -> None:
        """The writer stored these (member, nickname known) sightings: a cached row whose
        names they change goes (the next read has the new name and the old one as an alias)."""
        if self._rows is None:
            return
        for member, nickname_known in sightings:
            key = (member.guild_id, member.user_id)
            cached = self._rows.get(key)
            if cached is not None and renames(cached, member, nickname_known):
                self._rows.pop(key, None)

    def forget_all(self) -> None:
        if self._rows is not None:
            self._rows.clear()

    def forget(self, guild_id: int, user_id: int | None = None) -> None:
        """Drop a member's cached row (or every row of the guild): it changed."""
        if self._rows is None:
            return
        if user_id is not None:
            self._rows.pop((guild_id, user_id), None)
            return
        for key in [key for key in list(self._rows) if key[0] == guild_id]:
            self._rows.pop(key, None)

    async def all(self, guild_id: int) -> list[Member]:
        return await list_members(self._pool, guild_id)

    async def display_names(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, str]:
        """id -> the name the guild sees, for every id (unknown ids read `user <id>`)."""
        known = await self.get(guild_id, list(user_ids))
        return {
            user_id: known[user_id].display_name if user_id in known else f"user {user_id}"
            for user_id in user_ids
        }


def renames(cached: Member, seen: Member, nickname_known: bool) -> bool:
    """Does storing `seen` change the names of `cached` (unknown fields are kept as stored)?"""
    if seen.username is not None and seen.username != cached.username:
        return True
    if seen.global_name is not None and seen.global_name != cached.global_name:
        return True
    if nickname_known or seen.nickname is not None:
        return seen.nickname != cached.nickname
    return False
