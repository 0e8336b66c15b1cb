"""The warm path of the MemoryManager: each member's last served context, kept for the rest
of its local hour so a repeated request costs no database round trip and no LLM call; after
that hour (same local day) a reply is still served it at once while the rebuild runs behind.

Today's summary cannot change within an hour bucket (it is rebuilt at most once per bucket),
and everything else a context is built from invalidates it when it changes in this process:
facts (FactService listener), re-summarised days, timezone changes, edits/deletes/late
messages (the batched writer's hook). An epoch counter keeps a build that was overtaken by
such a change from becoming warm.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from cachetools import LRUCache

from memory.core.clock import Clock, ensure_aware

HourBucket = tuple[date, int]


@dataclass(frozen=True, slots=True)
class ServedContext:
    """What a report needs of a build, without its inputs. The context text is kept in two
    parts: the merge (the very string the context cache holds, so keeping it costs a
    reference) and what was attached after it (today's notes, newer days), joined when served:
    one copy of the whole text per member cost about 1.5 KB of a 6.5 KB budget."""

    guild_id: int
    user_id: int
    member_name: str
    head: str
    tail: str
    today: date
    timezone: str
    facts_chars: int
    today_chars: int
    history_chars: int
    history_detail: str
    bucket: HourBucket
    learned_chars: int = 0  # of facts_chars, what was learned from chat (not told)

    @property
    def text(self) -> str | None:
        return (self.head + self.tail) or None


class WarmContexts:
    """(guild, member) -> ServedContext, valid within its local hour bucket."""

    def __init__(self, clock: Clock, maxsize: int) -> None:
        self._clock = clock
        self._entries: LRUCache[tuple[int, int], ServedContext] = LRUCache(maxsize)
        self.epoch = 0

    def bucket(self, timezone: str) -> HourBucket:
        local = ensure_aware(self._clock.now()).astimezone(ZoneInfo(timezone))
        return local.date(), local.hour

    def get(self, guild_id: int, user_id: int) -> ServedContext | None:
        served = self._entries.get((guild_id, user_id))
        if served is None or served.bucket != self.bucket(served.timezone):
            return None
        return served

    def last(self, guild_id: int, user_id: int) -> ServedContext | None:
        """The member's last good context of an earlier hour of the same local day (only
        today's notes can be older; everything else would have invalidated it): what a reply
        is served while the next build runs. Never one of another day, nor an invalidated one."""
        served = self._entries.get((guild_id, user_id))
        if served is None or served.bucket[0] != self.bucket(served.timezone)[0]:
            return None
        return served

    def put(self, served: ServedContext, *, epoch: int) -> None:
        """Keep `served` unless something was invalidated since its build started (`epoch`)."""
        if epoch == self.epoch:
            self._entries[(served.guild_id, served.user_id)] = served

    def invalidate(self, guild_id: int, user_id: int) -> None:
        self.epoch += 1
        self._entries.pop((guild_id, user_id), None)

    def invalidate_guild(self, guild_id: int) -> None:
        self.epoch += 1
        for key in [key for key in self._entries if key[0] == guild_id]:
            self._entries.pop(key, None)

    def clear(self) -> None:
        self.epoch += 1
        self._entries.clear()
