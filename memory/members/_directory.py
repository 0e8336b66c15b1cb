"""The member directory as front ends need it: look members up by name or id, list a guild.

Front ends (the console, CLI commands) read names through this instead of the queries, so
`bot/` never touches the database.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from db.members import find_by_name, get_members, list_members
from memory.core.models import Member


class MemberDirectory:
    """Read-only lookups in the `members` directory of one database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def find(self, guild_id: int, name: str) -> list[Member]:
        """Members answering to `name` (any name or alias, case-insensitive)."""
        return await find_by_name(self._pool, guild_id, name)

    async def get(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, Member]:
        return await get_members(self._pool, guild_id, user_ids)

    async def all(self, guild_id: int) -> list[Member]:
        return await list_members(self._pool, guild_id)

    async def display_names(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, str]:
        """id -> the name the guild sees, for every id (unknown ids read `user <id>`)."""
        known = await self.get(guild_id, list(user_ids))
        return {
            user_id: known[user_id].display_name if user_id in known else f"user {user_id}"
            for user_id in user_ids
        }
