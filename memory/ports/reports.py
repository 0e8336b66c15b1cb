"""What memory tells about the past, as the front ends see it: episodes, catch-ups, digests,
closed days and members' contexts.

Protocols, not a face: `EpisodeService` and `MemoryManager` satisfy them as they are (the type
checker holds them to it wherever a `Memory` is used as a `FrontDoor`), so a signature lives
in one place and "go to definition" from a front end lands on the service that does the work.
The episodes cog, the console and the CLI's `episodes`/`summarize`/`import`/`memory` commands
see only these.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from memory.core.report import ContextReport
from memory.core.viewer import Viewer
from memory.episodes import Episode, PendingDigest
from memory.summaries import DayResult


class Episodes(Protocol):
    """Episodes per channel, a member's catch-up and the daily digest (`EpisodeService`)."""

    async def listing(
        self,
        guild_id: int,
        *,
        channel_id: int | None = None,
        day: date | None = None,
        viewer: Viewer | None = None,
        limit: int = 50,
    ) -> list[Episode]: ...

    async def catch_up(
        self, guild_id: int, user_id: int, viewer: Viewer, *, hours: int | None = None
    ) -> str:
        """What happened since the member last spoke (or in the last `hours`)."""
        ...

    async def refresh(self, since: datetime) -> None:
        """Cut channels with messages since `since` that no episode covers, and close the
        episodes gone quiet (after an import, or a process that stopped before cutting)."""
        ...

    async def cut_guild(self, guild_id: int) -> int: ...

    async def summarize_guild(self, guild_id: int) -> int:
        """Summarise the guild's closed episodes; how many were stored."""
        ...

    async def settled(self) -> None:
        """Wait until every episode cut queued so far is done (the console, tests)."""
        ...

    async def digest_text(self, guild_id: int, day: date) -> str: ...

    async def digest_preview(self, guild_id: int, day: date) -> str: ...

    async def next_digest(self, guild_ids: Sequence[int]) -> PendingDigest | None:
        """The next digest due among `guild_ids`, claimed so one process posts it."""
        ...

    async def digest_posted(self, digest: PendingDigest) -> None: ...


class Contexts(Protocol):
    """Members' contexts and the guild-days they are built from (`MemoryManager`)."""

    async def timezone(self, guild_id: int) -> str:
        """The guild's timezone, which decides where its days begin."""
        ...

    async def summarize_day(self, guild_id: int, day: date, force: bool = True) -> DayResult: ...

    async def check_day(self, guild_id: int, day: date) -> None:
        """DayOutOfRange when `day` is not one a summary can be asked for."""
        ...

    async def days_to_close(self, guild_id: int, first: date, last: date) -> list[date]: ...

    async def due_days(self, guild_id: int) -> list[date]:
        """Every past day that no stored summary describes."""
        ...

    async def close_due_days(self, guild_id: int) -> list[date]: ...

    async def build_context(self, guild_id: int, user_id: int, *, budget: float) -> ContextReport:
        """The member's merged context, built now if it is stale (waiting up to `budget`)."""
        ...

    async def stored_context(self, guild_id: int, user_id: int) -> ContextReport:
        """What is stored for the member right now, built or not."""
        ...

    async def wait_for_context(self, guild_id: int, user_id: int) -> ContextReport: ...
