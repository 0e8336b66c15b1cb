"""Small named collaborators the wiring hands to services where a bound method will not do:
each says what it adds to the method it calls (a budget, an invalidation), and a reader or a
call-graph walk can follow it by name, which a closure would hide.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from memory.context import MemoryManager
from memory.wiring._caches import CrossProcessCaches


@dataclass(frozen=True, slots=True)
class AskedMemories:
    """What-do-you-know was asked for: wait for a member's build up to one LLM timeout."""

    manager: MemoryManager
    budget: float

    async def __call__(self, guild_id: int, user_id: int) -> str | None:
        return await self.manager.get_memories(guild_id, user_id, budget=self.budget)


@dataclass(frozen=True, slots=True)
class SharedResummary:
    """A day re-summarized after a purge; other processes' contexts of the guild go stale."""

    manager: MemoryManager
    caches: CrossProcessCaches

    async def __call__(self, guild_id: int, day: date) -> object:
        result = await self.manager.summarize_day(guild_id, day, force=False)
        if result.computed:
            self.caches.guild(guild_id)
        return result
