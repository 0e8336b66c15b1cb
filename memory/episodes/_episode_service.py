"""The episodes service: cutting, summaries, listings, catch-up, the digest, reply memory.

Front ends reach it as `Memory.episodes`; the job worker calls `sweep`, `summarize_guild` and
`run_digest`; the writer calls `note`; the privacy desk calls `forget_member`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import asyncpg

from db import episode_reads as reads
from db import episodes as store
from db.summaries import forgotten_in_guild
from memory.core.clock import Clock
from memory.core.events import MemberPurged, MessagesStored
from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.episodes._catch_up import CatchUp
from memory.episodes._cutting import EpisodeCutter
from memory.episodes._digest import compose, day_bounds, due_day
from memory.episodes._forgotten import forgotten_of, scrub_episodes
from memory.episodes._listing import listing_rows, readable_ids
from memory.episodes._reply import EpisodeReplyMemory
from memory.episodes._segment import SegmentRules
from memory.episodes._summaries import EpisodeSummarizer
from memory.episodes._views import Episode
from memory.episodes._visibility import public_channel_ids
from memory.guilds import GuildSettingsCache
from memory.language import content_tokens
from memory.llm import MemoryLLM
from memory.members import MemberDirectory, ReadForgotten

_log = logging.getLogger(__name__)

# How far back the sweep looks for messages no episode covers.
LOOKBACK = timedelta(days=8)
DIGEST_LEASE_SECONDS = 300.0


PublicChannels = Callable[[int, set[int]], Awaitable[frozenset[int]]]


@dataclass(frozen=True, slots=True)
class PendingDigest:
    guild_id: int
    day: date
    channel_id: int
    text: str


class EpisodeService:
    """Episodes of every channel, from cutting to the digest."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        llm: MemoryLLM,
        guild_settings: GuildSettingsCache,
        *,
        clock: Clock,
        telemetry: Telemetry,
        default_silence_minutes: int = 180,
        public_channels: PublicChannels | None = None,
        llm_summaries: str = "digest",
        members: MemberDirectory | None = None,
        forgotten: ReadForgotten | None = None,
        bot_name: str = "",
    ) -> None:
        """`members`, `forgotten`: the rows the reply path holds (read from the database when
        not given)."""
        self._pool = pool
        self._forgotten = forgotten or (lambda guild_id: forgotten_in_guild(pool, guild_id))
        self._guilds = guild_settings
        self._clock = clock
        self._telemetry = telemetry
        self._default_silence = default_silence_minutes
        self._llm_summaries = llm_summaries
        self.cutter = EpisodeCutter(pool, self.rules_for, telemetry=telemetry)
        self._members = members or MemberDirectory(pool)
        self.summarizer = EpisodeSummarizer(
            pool, llm, telemetry=telemetry, members=self._members, bot_name=bot_name
        )
        self._reply = EpisodeReplyMemory(
            pool, guild_settings, self.summarizer, self._scrubbed, clock=clock
        )
        self._catch_up = CatchUp(pool, clock, self.summarizer, self, llm_summaries=llm_summaries)
        # Which channels everyone can read (the digest's only sources): see _visibility.py.
        self._public_channels = public_channels or (
            lambda guild_id, ids: public_channel_ids(pool, guild_id, ids)
        )

    def rules_for(self, guild_id: int) -> SegmentRules:
        minutes = self._guilds.peek(guild_id).episode_silence_minutes
        return SegmentRules(silence=timedelta(minutes=minutes or self._default_silence))

    # --- ingest and background work --------------------------------------------------------

    def note(self, stored: MessagesStored) -> None:
        """The writer stored these messages: their channels are cut again soon."""
        self.cutter.note(stored.messages)

    async def settled(self) -> None:
        await self.cutter.settled()

    async def cut_guild(self, guild_id: int) -> int:
        """Cut every channel of the guild from its first message (after an import)."""
        return await self.cutter.cut_guild(guild_id)

    async def sweep(self) -> tuple[list[int], list[tuple[int, date]]]:
        """Cut channels no episode covers yet, close quiet episodes; the guilds with episodes
        to summarise and the guild-days whose digest is due (for the job queue)."""
        now = self._clock.now()
        await self.refresh(now - LOOKBACK)
        digests = []
        for row in await reads.digest_guilds(self._pool):
            day = due_day(now, row["timezone"], row["at"])
            if day is not None and await reads.digest_row(self._pool, row["guild_id"], day) is None:
                digests.append((row["guild_id"], day))
        return await store.guilds_due_summary(self._pool), digests

    async def refresh(self, since: datetime) -> None:
        """Cut channels with messages since `since` that no episode covers (an import, a
        process that stopped before cutting), and close the episodes gone quiet."""
        for guild_id, channel_id, oldest in await store.unsegmented_channels(
            self._pool, since, 200
        ):
            await self.cutter.cut_channel(guild_id, channel_id, oldest)
        silences = {
            guild_id: minutes
            for guild_id in await store.guilds_with_open(self._pool)
            if (minutes := self._guilds.peek(guild_id).episode_silence_minutes)
        }
        await store.close_quiet(self._pool, self._clock.now(), silences, self._default_silence)

    async def summarize_guild(self, guild_id: int) -> int:
        """Summarise the guild's closed episodes: by the model with EPISODE_LLM_SUMMARIES=
        always, else extractively (no call; a digest upgrades the day's public ones)."""
        model = self._llm_summaries == "always"
        return await self.summarizer.summarize_guild(guild_id, model=model)

    async def forget_member(self, purged: MemberPurged) -> None:
        """Purge and opt-out: the member's episodes go and their channels are cut again
        without them (their messages are already deleted)."""
        guild_id, user_id = purged.guild_id, purged.user_id
        for channel_id, since in (await store.forget_member(self._pool, guild_id, user_id)).items():
            await self.cutter.cut_channel(guild_id, channel_id, since)

    # --- reads ---------------------------------------------------------------------------

    async def listing(
        self,
        guild_id: int,
        *,
        channel_id: int | None = None,
        day: date | None = None,
        viewer: Viewer | None = None,
        limit: int = 50,
    ) -> list[Episode]:
        rows = await listing_rows(
            self._pool,
            guild_id,
            channel_id=channel_id,
            days=None if day is None else (day, day + timedelta(days=1)),
            timezone=(await self._guilds.get(guild_id)).timezone,
            viewer=viewer,
            limit=limit,
        )
        return await self._scrubbed(guild_id, [Episode.from_row(row) for row in rows])

    async def _scrubbed(self, guild_id: int, episodes: list[Episode]) -> list[Episode]:
        """Episodes as served: without sentences restating what a member asked to forget."""
        if not episodes:
            return episodes
        return scrub_episodes(episodes, forgotten_of(await self._forgotten(guild_id)))

    async def current(self, guild_id: int, channel_id: int) -> Episode | None:
        row = await reads.current(self._pool, guild_id, channel_id)
        if row is None:
            return None
        return (await self._scrubbed(guild_id, [Episode.from_row(row)]))[0]

    async def search(
        self, guild_id: int, question: str, *, viewer: Viewer | None, limit: int = 5
    ) -> list[Episode]:
        """Episodes whose title or summary holds the question's words (a recall lane),
        only of channels the viewer may read."""
        terms = sorted(content_tokens(question))[:16]
        rows = await reads.search(
            self._pool, guild_id, terms, channel_ids=readable_ids(viewer), limit=limit
        )
        return await self._scrubbed(guild_id, [Episode.from_row(row) for row in rows])

    async def timezone(self, guild_id: int) -> str:
        return (await self._guilds.get(guild_id)).timezone

    # --- catch-up ------------------------------------------------------------------------

    async def catch_up(
        self, guild_id: int, user_id: int, viewer: Viewer, *, hours: int | None = None
    ) -> str:
        """The episodes since the member last wrote (or the last `hours`), newest first, of
        channels the viewer may read: channel, title, one line, jump link."""
        return await self._catch_up.lines(guild_id, user_id, viewer, hours=hours)

    # --- the reply's working memory --------------------------------------------------------

    async def reply_context(
        self, guild_id: int, channel_id: int, text: str, viewer: Viewer | None
    ) -> str:
        """What a reply should know of episodes: the episodes of a channel/day the question
        asks about ("what were we talking about in #general yesterday?"), then the channel's
        current one (see _reply.py)."""
        return await self._reply.context(guild_id, channel_id, text, viewer)

    # --- the digest ----------------------------------------------------------------------

    async def _digest_episodes(self, guild_id: int, day: date) -> list[Episode]:
        """The day's episodes (started on it, guild time) of public, not ignored channels."""
        episodes = await self.listing(guild_id, day=day, limit=200)
        start, end = day_bounds(day, await self.timezone(guild_id))
        public = await self._public_channels(guild_id, {episode.channel_id for episode in episodes})
        ignored = self._guilds.peek(guild_id).ignored_channel_ids
        return [
            episode
            for episode in episodes
            if episode.channel_id in public
            and episode.channel_id not in ignored
            and start <= episode.started_at < end
        ]

    async def digest_text(self, guild_id: int, day: date) -> str:
        """The digest of the guild-day ('' when nothing happened), from public channels."""
        chosen = await self._digest_episodes(guild_id, day)
        members = sorted({user_id for episode in chosen for user_id in episode.member_ids})
        names = await self._members.display_names(guild_id, members)
        return compose(day, chosen, names)

    async def digest_preview(self, guild_id: int, day: date) -> str:
        """The digest as its job would compose it, after the digest's one batched call (the
        day's public episodes by the model); nothing is stored or posted."""
        await self.summarize_guild(guild_id)  # what is due, as the sweep's job would
        if self._llm_summaries != "never":
            chosen = await self._digest_episodes(guild_id, day)
            await self.summarizer.summarize_guild(
                guild_id,
                model=True,
                upgrade=[episode.id for episode in chosen if episode.message_count > 1],
            )
        return await self.digest_text(guild_id, day)

    async def run_digest(self, guild_id: int, day: date) -> bool:
        """The digest job: summarise what is due, compose, store once; True when stored."""
        settings = await self._guilds.get(guild_id)
        if settings.digest_channel_id is None:
            return False
        text = await self.digest_preview(guild_id, day)
        stored = await reads.store_digest(
            self._pool, guild_id, day, settings.digest_channel_id, text
        )
        self._telemetry.emit(
            "digest",
            outcome="composed" if text else "empty",
            guild_id=guild_id,
            day=day.isoformat(),
            chars=len(text),
            stored=stored,
        )
        return stored

    async def next_digest(self, guild_ids: Sequence[int]) -> PendingDigest | None:
        """A composed digest of these guilds to post, claimed for this process."""
        row = await reads.claim_digest(self._pool, list(guild_ids), DIGEST_LEASE_SECONDS)
        if row is None:
            return None
        return PendingDigest(row["guild_id"], row["day"], row["channel_id"], row["text"])

    async def digest_posted(self, digest: PendingDigest) -> None:
        await reads.mark_posted(self._pool, digest.guild_id, digest.day)

    async def aclose(self) -> None:
        await self.cutter.aclose()
