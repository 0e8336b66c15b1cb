"""Catch-up: what a member missed since they last wrote, episode by episode, from channels
they may read; the member's own monologue and questions to the bot are nothing missed.
"""

from __future__ import annotations

import logging
from dataclasses import KW_ONLY, dataclass
from datetime import datetime, timedelta
from typing import Protocol

import asyncpg

from db import episode_reads as reads
from db import episodes as store
from memory.core.clock import Clock
from memory.core.viewer import Viewer
from memory.episodes._summaries import EpisodeSummarizer
from memory.episodes._views import Episode, catch_up_line

_log = logging.getLogger(__name__)

CATCH_UP_HOURS = 24
VISIT = timedelta(minutes=30)
CATCH_UP_LIMIT = 10
# An open episode this long without a summary is summarised so far for a catch-up.
BUSY_MESSAGES = 30


class _Episodes(Protocol):
    """What a catch-up reads of the episode service: episodes as served (scrubbed)."""

    async def settled(self) -> None: ...

    async def listing(
        self, guild_id: int, *, viewer: Viewer | None = None, limit: int = 50
    ) -> list[Episode]: ...

    async def current(self, guild_id: int, channel_id: int) -> Episode | None: ...


@dataclass(frozen=True, slots=True, eq=False)
class CatchUp:
    """Composes a member's catch-up; may summarise an open, busy episode so far (one call)."""

    pool: asyncpg.Pool
    clock: Clock
    summarizer: EpisodeSummarizer
    episodes: _Episodes
    _: KW_ONLY
    llm_summaries: str

    async def lines(
        self, guild_id: int, user_id: int, viewer: Viewer, *, hours: int | None = None
    ) -> str:
        """The episodes since the member last wrote (or the last `hours`), newest first, of
        channels the viewer may read: channel, title, one line, jump link."""
        await self.episodes.settled()  # the messages just stored are in their episodes
        now = self.clock.now()
        since = now - timedelta(hours=hours or CATCH_UP_HOURS)
        if hours is None:
            # Their last visit: what they wrote just now (the question itself, a greeting on
            # arrival) is this visit.
            last = await reads.last_message_at(self.pool, guild_id, user_id, now - VISIT)
            if last is not None:
                since = max(last, now - timedelta(days=7))
        episodes = await self._missed(guild_id, user_id, viewer, since)
        if self.llm_summaries != "always" and any(
            episode.state != "open" and not episode.summary for episode in episodes
        ):
            # Closed before the worker's job got to them: summarised now, extractively (no call).
            await self.summarizer.summarize_guild(guild_id, model=False)
            episodes = await self._missed(guild_id, user_id, viewer, since)
        if not episodes:
            return "Nothing new since you were last here."
        lines = ["Since you were last here:"]
        for episode in episodes:
            if episode.state == "open" and not episode.summary:
                episode = await self._summarised_so_far(guild_id, episode)
            lines.append(catch_up_line(episode, f"<#{episode.channel_id}>"))
        return "\n".join(lines)

    async def _missed(
        self, guild_id: int, user_id: int, viewer: Viewer, since: datetime
    ) -> list[Episode]:
        """Episodes of readable channels that went on after `since` in which someone else said
        something to the others: the member's own monologue, and questions to the bot (theirs
        or anyone's), are nothing missed."""
        missed: list[Episode] = []
        for episode in await self.episodes.listing(
            guild_id, viewer=viewer, limit=CATCH_UP_LIMIT * 3
        ):
            if len(missed) == CATCH_UP_LIMIT:
                break
            fresh = episode.ended_at > since and user_id not in _only(episode)
            if fresh and await self._others_talked(episode, user_id):
                missed.append(episode)
        return missed

    async def _others_talked(self, episode: Episode, user_id: int) -> bool:
        rows = await store.episode_messages(self.pool, episode_bounds(episode))
        talk = self.summarizer.members_talk(rows, keep_alone=False)
        return any(row["author_id"] != user_id for row in talk)

    async def _summarised_so_far(self, guild_id: int, episode: Episode) -> Episode:
        """An open episode's summary so far for a catch-up: by the model for a busy channel
        (the one call a catch-up may make), extractively otherwise (no call); served scrubbed
        of forgotten statements like every listed episode."""
        row = await reads.current(self.pool, guild_id, episode.channel_id)
        if row is None:
            return episode
        busy = episode.message_count >= BUSY_MESSAGES
        try:
            await self.summarizer.summarize_open(
                guild_id, row, model=busy and self.llm_summaries != "never"
            )
        except Exception as exc:  # a catch-up without it is still a catch-up
            _log.warning("summary so far for a catch-up failed: %s", type(exc).__name__)
            return episode
        return await self.episodes.current(guild_id, episode.channel_id) or episode


def episode_bounds(episode: Episode) -> dict[str, object]:
    """What `db.episodes.episode_messages` reads of an episode row."""
    return {
        "guild_id": episode.guild_id,
        "channel_id": episode.channel_id,
        "started_at": episode.started_at,
        "first_message_id": episode.first_message_id,
        "ended_at": episode.ended_at,
        "last_message_id": episode.last_message_id,
    }


def _only(episode: Episode) -> tuple[int, ...]:
    """Members of an episode only they spoke in (their own monologue is nothing missed)."""
    return episode.member_ids if len(episode.member_ids) == 1 else ()
