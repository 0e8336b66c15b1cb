"""Find members named in free text ("is alice coming?") and render `<@id>` mentions as names.

Prompts show names, storage keeps ids: this is where the two meet for replies.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable

from cachetools import TTLCache

from memory.core.models import Member

MENTION = re.compile(r"<@!?(\d{15,21})>")
MIN_NAME_LENGTH = 3


def mentioned_ids(text: str) -> list[int]:
    """User ids mentioned as `<@id>` / `<@!id>`, in order, without repeats."""
    seen: list[int] = []
    for match in MENTION.finditer(text):
        user_id = int(match.group(1))
        if user_id not in seen:
            seen.append(user_id)
    return seen


def render_mentions(text: str, names: dict[int, str]) -> str:
    """Replace `<@id>` with `@name` for known members (unknown ids stay as they are)."""

    def name_for(match: re.Match[str]) -> str:
        name = names.get(int(match.group(1)))
        return f"@{name}" if name else match.group(0)

    return MENTION.sub(name_for, text)


class NameIndex:
    """Every name and alias of a guild's members, matched as whole words, case-insensitively."""

    def __init__(self, members: Iterable[Member]) -> None:
        by_name: dict[str, set[int]] = {}
        for member in members:
            for name in member.names:
                key = name.strip().lower()
                if len(key) >= MIN_NAME_LENGTH:
                    by_name.setdefault(key, set()).add(member.user_id)
        self._by_name = by_name
        # Longest names first so "Anna Maria" wins over "Anna".
        names = sorted(by_name, key=len, reverse=True)
        self._pattern = (
            re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in names) + r")(?!\w)", re.I)
            if names
            else None
        )

    def named_in(self, text: str) -> list[int]:
        """Members unambiguously named in `text`, in order of appearance."""
        if self._pattern is None:
            return []
        found: list[int] = []
        for match in self._pattern.finditer(text):
            ids = self._by_name.get(match.group(1).lower(), set())
            if len(ids) == 1:
                (user_id,) = ids
                if user_id not in found:
                    found.append(user_id)
        return found


class NameIndexCache:
    """One NameIndex per guild, rebuilt after `ttl` seconds so renames show up quickly."""

    def __init__(
        self,
        load: Callable[[int], Awaitable[list[Member]]],
        *,
        ttl: float = 60.0,
        max_guilds: int = 1_000,
    ) -> None:
        self._load = load
        # Bounded: the least recently used guild's index goes first past `max_guilds`.
        self._entries: TTLCache[int, NameIndex] = TTLCache(maxsize=max_guilds, ttl=ttl)

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, guild_id: int) -> NameIndex:
        index = self._entries.get(guild_id)
        if index is not None:
            return index
        index = NameIndex(await self._load(guild_id))
        self._entries[guild_id] = index
        return index

    def invalidate(self, guild_id: int) -> None:
        self._entries.pop(guild_id, None)
