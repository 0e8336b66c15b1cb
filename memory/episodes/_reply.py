"""What a reply knows of episodes: the episodes its question asks about (a day, a channel),
then the channel's current one as working memory.

"What did we talk about in #general on Monday, March 6?" brings that day's episodes of that
channel; "what were we talking about yesterday?" those of every channel the asker may read.
The asked episodes come first: the reply's episode memory has a small budget and they are
what the question is about. An asked episode not summarised yet gets an extractive summary
for the reply (no call, not stored: its own summary stays due for its job).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, replace
from datetime import date, timedelta
from zoneinfo import ZoneInfo

import asyncpg

from db import episode_reads as reads
from memory.core.clock import Clock
from memory.core.text import truncate
from memory.core.viewer import Viewer
from memory.episodes._listing import listing_rows
from memory.episodes._summaries import SUMMARY_CHARS, TITLE_CHARS, EpisodeSummarizer
from memory.episodes._views import Episode, local_span, working_memory
from memory.guilds import GuildSettingsCache
from memory.language import (
    asked_channel,
    asked_channel_name,
    asked_day,
    asked_period,
    asks_what_was_talked_about,
)

_log = logging.getLogger(__name__)

# Episodes of an asked day or channel a reply carries (newest first).
ASKED_LIMIT = 5
# An open episode's summary so far is redone for a reply when this many messages are new.
WORKING_MEMORY_STEP = 10

Scrub = Callable[[int, list[Episode]], Awaitable[list[Episode]]]


def asked_days(text: str, today: date, *, talked: bool) -> tuple[date, date] | None:
    """[first day, day after the last) whose episodes a question asks for: the day it names
    (any question: "what did bob say about the trip yesterday?"), else, when it asks what
    was talked about (`talked`), the week, month or year it names ("what did we talk about
    last week?", "... in July?")."""
    day = asked_day(text, today)
    if day is not None:
        return day, day + timedelta(days=1)
    return asked_period(text, today) if talked else None


@dataclass(frozen=True, slots=True, eq=False)
class EpisodeReplyMemory:
    """The episode part of a reply's memory (`EpisodeService.reply_context`)."""

    pool: asyncpg.Pool
    guilds: GuildSettingsCache
    summarizer: EpisodeSummarizer
    scrub: Scrub
    _: KW_ONLY
    clock: Clock

    async def context(
        self, guild_id: int, channel_id: int, text: str, viewer: Viewer | None
    ) -> str:
        """The asked-about episodes (one line each), then the channel's current one."""
        reader = viewer or Viewer.of_channels(None, {channel_id})
        parts = await self._asked(guild_id, text, reader)
        current = await self.current_summarised(guild_id, channel_id)
        if current is not None and (current.summary or current.title):
            parts.append(working_memory(current, text))
        return "\n".join(parts)

    async def _asked(self, guild_id: int, text: str, reader: Viewer) -> list[str]:
        settings = await self.guilds.get(guild_id)
        today = self.clock.now().astimezone(ZoneInfo(settings.timezone)).date()
        talked = asks_what_was_talked_about(text)
        days = asked_days(text, today, talked=talked)
        if days is None and not talked:
            return []
        channel_id = await self._asked_channel(guild_id, text)
        if channel_id is not None and not reader.may_read(channel_id):
            channel_id = None  # a channel they may not read is not theirs to ask about
        if days is None and channel_id is None:
            return []
        episodes = await self._listed(guild_id, channel_id, days, settings.timezone, reader)
        if not episodes:
            return []
        names = await self.guilds.channel_names(guild_id, {e.channel_id for e in episodes})
        lines = []
        for episode in episodes:
            channel = f"#{names[episode.channel_id]}" if episode.channel_id in names else ""
            span = local_span(episode, settings.timezone)
            label = (
                episode.label
                if episode.label.endswith((".", "?", "!", "…"))
                else (f"{episode.label}.")
            )
            lines.append(f"{channel} {span}: {label} {episode.summary}".strip())
        return lines

    async def _asked_channel(self, guild_id: int, text: str) -> int | None:
        mentioned = asked_channel(text)
        if mentioned is not None:
            return mentioned
        name = asked_channel_name(text)
        if name is None:
            return None
        found = await self.guilds.channels_named(guild_id, name)
        return found[0] if len(found) == 1 else None

    async def _listed(
        self,
        guild_id: int,
        channel_id: int | None,
        days: tuple[date, date] | None,
        timezone: str,
        reader: Viewer,
    ) -> list[Episode]:
        """The asked episodes, oldest first, each with a summary (extractive if none yet): a
        day's newest, a longer stretch's biggest ("last week": its last five were its Sunday,
        not what the week talked about), each day's biggest first."""
        rows = await listing_rows(
            self.pool,
            guild_id,
            channel_id=channel_id,
            days=days,
            timezone=timezone,
            viewer=reader,
            limit=ASKED_LIMIT,
            biggest=days is not None and (days[1] - days[0]).days > 1,
        )
        episodes = await self._summarised(guild_id, rows)
        # Oldest first reads as the day went.
        return sorted(await self.scrub(guild_id, episodes), key=lambda e: (e.ended_at, e.id))

    async def _summarised(self, guild_id: int, rows: list[asyncpg.Record]) -> list[Episode]:
        """The episodes of `rows` with their summaries, extractive (not stored) for those with
        none yet: their lines read in one statement (one at a time, the five of "what did we
        talk about yesterday?" waited for five reads in turn; at once, they took five of the
        pool's connections beside the reply's search)."""
        episodes = [Episode.from_row(row) for row in rows]
        unsummarised = [i for i, episode in enumerate(episodes) if not episode.summary]
        if not unsummarised:
            return episodes
        answers = await self.summarizer.extract(guild_id, [rows[i] for i in unsummarised])
        for i, answer in zip(unsummarised, answers, strict=True):
            episodes[i] = replace(
                episodes[i],
                title=truncate(answer.title.strip(), TITLE_CHARS),
                summary=truncate(answer.summary.strip(), SUMMARY_CHARS),
            )
        return episodes

    async def current_summarised(self, guild_id: int, channel_id: int) -> Episode | None:
        """The channel's open episode with a summary so far: one with none yet (3 messages
        or more) or behind by WORKING_MEMORY_STEP messages is summarised extractively (no
        call)."""
        row = await reads.current(self.pool, guild_id, channel_id)
        if row is None:
            return None
        behind = row["message_count"] - row["summarized_count"]
        if behind >= WORKING_MEMORY_STEP or (row["summarized_count"] == 0 and behind >= 3):
            await self.summarizer.summarize_open(guild_id, row, model=False)
            row = await reads.current(self.pool, guild_id, channel_id) or row
        return (await self.scrub(guild_id, [Episode.from_row(row)]))[0]
