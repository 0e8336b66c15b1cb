"""What memory tells about the past: episodes, catch-ups, digests and closed days.

The episodes cog, the console and the CLI's `episodes`/`summarize`/`import` commands see only
this face. Days are closed (summarized once, batched per guild) by `summarize_day`; episodes are
cut and summarized as messages arrive.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from memory.context import MemoryManager
from memory.core.viewer import Viewer
from memory.episodes import Episode, EpisodeService, PendingDigest
from memory.summaries import DayResult


class Reports:
    """Episodes and their digests, and the guild-days summarized from them."""

    def __init__(self, episodes: EpisodeService, manager: MemoryManager) -> None:
        self._episodes = episodes
        self._manager = manager

    async def timezone(self, guild_id: int) -> str:
        """The guild's timezone, which decides where its days begin."""
        return await self._manager.timezone(guild_id)

    # --- episodes -----------------------------------------------------------------------

    async def listing(
        self,
        guild_id: int,
        *,
        channel_id: int | None = None,
        day: date | None = None,
        viewer: Viewer | None = None,
        limit: int = 50,
    ) -> list[Episode]:
        return await self._episodes.listing(
            guild_id, channel_id=channel_id, day=day, viewer=viewer, limit=limit
        )

    async def catch_up(
        self, guild_id: int, user_id: int, viewer: Viewer, *, hours: int | None = None
    ) -> str:
        """What happened since the member last spoke (or in the last `hours`)."""
        return await self._episodes.catch_up(guild_id, user_id, viewer, hours=hours)

    async def refresh_episodes(self, since: datetime) -> None:
        """Cut channels with messages since `since` that no episode covers, and close the
        episodes gone quiet (after an import, or a process that stopped before cutting)."""
        await self._episodes.refresh(since)

    async def cut_guild(self, guild_id: int) -> int:
        return await self._episodes.cut_guild(guild_id)

    async def summarize_episodes(self, guild_id: int) -> int:
        """Summarise the guild's closed episodes (by the model only with
        EPISODE_LLM_SUMMARIES=always); how many were stored."""
        return await self._episodes.summarize_guild(guild_id)

    async def settled(self) -> None:
        """Wait until every episode cut queued so far is done (the console, tests)."""
        await self._episodes.settled()

    # --- the daily digest ---------------------------------------------------------------

    async def digest_text(self, guild_id: int, day: date) -> str:
        return await self._episodes.digest_text(guild_id, day)

    async def digest_preview(self, guild_id: int, day: date) -> str:
        return await self._episodes.digest_preview(guild_id, day)

    async def next_digest(self, guild_ids: Sequence[int]) -> PendingDigest | None:
        """The next digest due among `guild_ids`, claimed so one process posts it."""
        return await self._episodes.next_digest(guild_ids)

    async def digest_posted(self, digest: PendingDigest) -> None:
        await self._episodes.digest_posted(digest)

    # --- closed days --------------------------------------------------------------------

    async def summarize_day(self, guild_id: int, day: date, force: bool = True) -> DayResult:
        return await self._manager.summarize_day(guild_id, day, force)

    async def check_day(self, guild_id: int, day: date) -> None:
        """DayOutOfRange when `day` is not one a summary can be asked for."""
        await self._manager.check_day(guild_id, day)

    async def days_to_close(self, guild_id: int, first: date, last: date) -> list[date]:
        return await self._manager.days_to_close(guild_id, first, last)

    async def due_days(self, guild_id: int) -> list[date]:
        """Every past day that no stored summary describes."""
        return await self._manager.due_days(guild_id)

    async def close_due_days(self, guild_id: int) -> list[date]:
        return await self._manager.close_due_days(guild_id)
