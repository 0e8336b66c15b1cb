"""Incremental summaries: a guild-day is read in passes, each message about once.

A pass covers a stretch of time [start, end) and leaves a short note per member it concerned
(who wrote, was mentioned or was replied to in that stretch). Today is folded at most once per
hour bucket, and only when someone of the guild is asked about; a day is closed from its notes,
never by re-reading its messages. Each pass keeps a fingerprint of the messages it read, so an
edit, delete or late message re-does only the stretch it falls in. Passes and notes are stored,
so a restart costs nothing. Within a process one task per guild-day folds (single flight);
across processes the guild-day advisory lock does, with a bounded wait.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import KW_ONLY, InitVar, dataclass, replace
from datetime import date, datetime, timedelta
from itertools import pairwise

import asyncpg

from db import notes as store
from db.day_locks import guild_day_lock
from db.members import get_members
from db.summaries import day_messages
from db.types import Connection
from memory.core.cache import SingleFlight
from memory.core.clock import day_bounds
from memory.core.events import EventBus, FactLearned
from memory.core.models import ChatMessage, Member
from memory.core.telemetry import Telemetry
from memory.language import asks_the_bot_only, is_memory_command
from memory.llm import (
    MemoryLLM,
    PromptMember,
    PromptMessage,
    compact_lines,
    target_legend,
    track_providers,
)
from memory.members import distinct_names, prompt_member, referenced_ids, render_messages
from memory.summaries._forgetting import drop_guild_forgotten, load_guild_forgotten
from memory.summaries._learned import store_learned
from memory.summaries._note_room import note_caps
from memory.summaries._packing import prompt_chars
from memory.summaries._stats import BuildStats
from memory.summaries._stretches import involved_ids, note_targets, split_stretch

_log = logging.getLogger(__name__)

# Characters of a pass prompt taken by the template, the legend and the constraints.
_PROMPT_OVERHEAD = 2_500
# Below this a stretch holds too little chat to be worth its own call.
_MIN_STRETCH_CHARS = 2_000
# A pass may wait while fewer messages than this are unread and none concerns the member
# asked about: their notes would not change, and the next pass reads the stretch in one go.
SKIP_MAX_MESSAGES = 100
# Nor is a pass due while every unread message is younger than this (once the day has a pass):
# today's notes are fresh within the hour (as the hour bucket already allowed), and the reply
# that asked sees the channel's latest turns itself. Passes come about hourly, reading more.
FRESH_WITHIN = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class NotesConfig:
    """Note length per member and pass, the prompt budget of one pass, the bot's name."""

    bot_name: str = "Bot"
    note_chars: int = 300
    prompt_max_chars: int | None = None


@dataclass(frozen=True, slots=True)
class _Stretch:
    """What one pass reads: [start, end) of a guild-day."""

    guild_id: int
    day: date
    timezone: str
    start: datetime
    end: datetime


@dataclass(eq=False)
class DayNotes:
    """Keeps `day_passes`/`day_notes` in step with the messages, one stretch at a time."""

    pool: asyncpg.Pool
    llm: MemoryLLM
    config: NotesConfig
    _: KW_ONLY
    telemetry: Telemetry
    events: InitVar[EventBus | None] = None

    def __post_init__(self, events: EventBus | None) -> None:
        self._flight: SingleFlight[tuple[int, date], dict[int, list[str]]] = SingleFlight("notes")
        # FactLearned per member a pass learned about: it shows without a restart.
        self._events = events or EventBus()

    async def fold(
        self,
        guild_id: int,
        day: date,
        timezone: str,
        *,
        until: datetime,
        stats: BuildStats,
        reread: bool = False,
        read_new: bool = True,
    ) -> dict[int, list[str]]:
        """Every member's notes of the day after reading what is new before `until` (and
        re-reading changed stretches, or every stretch with `reread`). Without `read_new` only
        the changed stretches are read (an edit or delete must leave the notes at once; what
        is new waits for its pass)."""

        async def locked() -> dict[int, list[str]]:
            async with guild_day_lock(self.pool, guild_id, day) as (conn, _waited):
                return await self.fold_locked(
                    conn,
                    guild_id,
                    day,
                    timezone,
                    until=until,
                    stats=stats,
                    reread=reread,
                    read_new=read_new,
                )

        result, _ = await self._flight.run((guild_id, day), locked)
        return result

    async def aclose(self) -> None:
        await self._flight.aclose()

    async def without_pass(
        self, guild_id: int, day: date, timezone: str, *, until: datetime, user_id: int
    ) -> dict[int, list[str]] | None:
        """The day's stored notes when a pass can wait: every stored pass is still true to its
        messages and the few messages not read yet (under SKIP_MAX_MESSAGES) either do not
        concern `user_id` (their notes would not change) or are all younger than FRESH_WITHIN
        after an earlier pass. None when a pass is due."""
        day_start, day_end = day_bounds(day, timezone)
        async with self.pool.acquire() as conn:
            passes = await store.day_passes(conn, guild_id, day)
            if not all(stored.fresh for stored in passes):
                return None
            start = passes[-1].end_at if passes else day_start
            unread = self._chat(await day_messages(conn, guild_id, start, min(until, day_end)))
            if len(unread) >= SKIP_MAX_MESSAGES:
                return None
            authors = {message.message_id: message.author_id for message in unread}
            # Waiting needs notes to serve: the day's first pass is never put off.
            young = bool(passes and unread) and until - unread[0].created_at < FRESH_WITHIN
            if not young and any(user_id in involved_ids(m, authors) for m in unread):
                return None
            return await store.day_notes(conn, guild_id, day)

    async def fold_locked(
        self,
        conn: Connection,
        guild_id: int,
        day: date,
        timezone: str,
        *,
        until: datetime,
        stats: BuildStats,
        reread: bool = False,
        redo_providers: frozenset[str] = frozenset(),
        read_new: bool = True,
    ) -> dict[int, list[str]]:
        """`fold` for a caller already holding the guild-day lock on `conn` (closing a day).
        Passes answered by one of `redo_providers` (a fallback) are read again too."""
        day_start, day_end = day_bounds(day, timezone)
        cutoff = min(until, day_end)
        passes = await store.day_passes(conn, guild_id, day)
        for stored in passes:
            degraded = stored.provider is not None and bool(
                set(stored.provider.split("+")) & redo_providers
            )
            if reread or degraded or not stored.fresh:
                stretch = _Stretch(guild_id, day, timezone, stored.start_at, stored.end_at)
                await self._read(conn, stretch, stats)
        last_end = passes[-1].end_at if passes else day_start
        if read_new and cutoff > last_end:
            await self._read_new(conn, _Stretch(guild_id, day, timezone, last_end, cutoff), stats)
        return await store.day_notes(conn, guild_id, day)

    async def providers(self, conn: Connection, guild_id: int, day: date) -> list[str]:
        """Who answered each pass that read messages, in order (one entry per such pass: a
        fallback's notes are told from the primary's, and their count is the day's chunks)."""
        return [
            stored.provider
            for stored in await store.day_passes(conn, guild_id, day)
            if stored.provider
        ]

    async def _read_new(self, conn: Connection, stretch: _Stretch, stats: BuildStats) -> None:
        """Read the stretch as one pass, or as several when it does not fit one prompt."""
        guild_id = stretch.guild_id
        messages = self._chat(await day_messages(conn, guild_id, stretch.start, stretch.end))
        budget = self._stretch_budget()
        if budget is None or not messages:
            await self._read(conn, stretch, stats)
            return
        members = await _prompt_members(conn, guild_id, messages)
        lines = compact_lines(render_messages(messages, members), stretch.timezone)
        authors = {message.message_id: message.author_id for message in messages}
        involved = [involved_ids(message, authors) for message in messages]
        legend = {
            uid: len(target_legend([prompt_member(uid, members)], caps={uid: 999})) + 1
            for uid in {uid for ids in involved for uid in ids}
        }
        runs = split_stretch(
            messages,
            [len(line) + 1 for line in lines],
            budget,
            involved=involved,
            legend_sizes=legend,
        )
        bounds = [stretch.start, *(run[0].created_at for run in runs[1:]), stretch.end]
        for index, (begin, finish) in enumerate(pairwise(bounds)):
            part = f"{index + 1}/{len(runs)}"
            await self._read(conn, replace(stretch, start=begin, end=finish), stats, part=part)

    def _stretch_budget(self) -> int | None:
        """Characters of chat one pass may hold: what a prompt may (`prompt_chars`) less the
        template, legend and constraints."""
        limit = prompt_chars(self.llm, "daily_summary", self.config.prompt_max_chars)
        if limit is None:
            return None
        return max(_MIN_STRETCH_CHARS, limit - _PROMPT_OVERHEAD)

    def _chat(
        self, messages: Sequence[ChatMessage], bots: frozenset[int] = frozenset()
    ) -> list[ChatMessage]:
        """What a note is made of: chat, not memory commands addressed to the bot (the facts
        hold those, and a quoted forget would repeat the very statement forgotten), nor
        questions to it that say nothing of who asks (`asks_the_bot_only`; by a mention once
        the directory says who of those mentioned are `bots`)."""
        bot_name = self.config.bot_name
        return [
            m
            for m in messages
            if not is_memory_command(m.content, bot_name=bot_name)
            and not asks_the_bot_only(m.content, bot_name=bot_name, bot_ids=bots)
        ]

    async def _read(
        self, conn: Connection, stretch: _Stretch, stats: BuildStats, *, part: str = "1/1"
    ) -> None:
        """One pass over the stretch: notes for everyone it concerns, stored."""
        guild_id, day, start, end = stretch.guild_id, stretch.day, stretch.start, stretch.end
        # The fingerprint is taken before reading: a message landing meanwhile makes the pass
        # stale, so it is read again next time rather than silently missed.
        fingerprint = await store.stretch_fingerprint(conn, guild_id, start, end)
        messages = self._chat(await day_messages(conn, guild_id, start, end))
        notes: dict[int, str] = {}
        provider = None
        if messages:
            with self.telemetry.span(
                "daily_summary",
                guild_id=guild_id,
                day=day.isoformat(),
                reason="pass",
                messages=len(messages),
            ) as event:
                with track_providers() as answered:
                    notes, targets = await self._notes(conn, stretch, messages, part)
                if targets:  # else every message dropped out: no model was asked
                    stats.llm("daily_summary")
                    # Who answered (the chain records it; a bare provider is its own answerer).
                    provider = "+".join(sorted(set(answered))) or self.llm.provider.name
                event.update(members=len(targets), llm_calls=1 if targets else 0)
        await store.save_pass(
            conn,
            guild_id,
            day,
            start=start,
            end=end,
            fingerprint=fingerprint,
            provider=provider,
            notes=notes,
        )

    async def _notes(
        self, conn: Connection, stretch: _Stretch, messages: list[ChatMessage], part: str
    ) -> tuple[dict[int, str], list[PromptMember]]:
        guild_id, day = stretch.guild_id, stretch.day
        members = await _prompt_members(conn, guild_id, messages)
        messages = self._chat(messages, frozenset(u for u, m in members.items() if m.is_bot))
        wanted = note_targets(messages, members)
        targets = [prompt_member(user_id, members) for user_id in wanted]
        if not targets:
            return {}, []
        rendered: list[PromptMessage] = render_messages(messages, members)
        guild_forgotten = await load_guild_forgotten(conn, guild_id)
        forgotten = {
            about.user_id: list(about.statements)
            for about in guild_forgotten
            if about.user_id in wanted
        }
        notes, learned = await self.llm.summaries.read_stretch(
            guild_id=guild_id,
            day=day,
            timezone=stretch.timezone,
            messages=rendered,
            members=targets,
            max_chars=self.config.note_chars,
            caps=await note_caps(
                conn, guild_id, day, stretch.start, list(wanted), self.config.note_chars
            ),
            forgotten=forgotten,
            part=part,
        )
        if learned:
            names = {member.user_id: [member.name, *member.aliases] for member in targets}
            changed = await store_learned(
                conn, guild_id, day, learned, messages, guild_forgotten, names
            )
            for user_id in sorted(changed):
                await self._events.publish(FactLearned(guild_id, user_id))
        # The model may not have obeyed the constraints: forgetting must stick.
        return {
            user_id: drop_guild_forgotten(text, user_id, guild_forgotten)[0]
            for user_id, text in notes.items()
        }, targets


async def _prompt_members(
    conn: Connection, guild_id: int, messages: Sequence[ChatMessage]
) -> dict[int, Member]:
    """Everyone the messages name, with display names made distinct: what a pass prompt is
    rendered from and sized by, so its transcript and the keys answers use agree."""
    return distinct_names(await get_members(conn, guild_id, sorted(referenced_ids(messages))))
