"""Closing a day: each member's day summary, made from the day's notes, persisted.

A completed day is closed once: the stretches not read yet (and any an edit, delete or late
message touched) are read into notes (memory.summaries._notes), then each member's notes become
their day summary verbatim: no call. A day is its notes; the model condenses them where it has
to anyway, when it rolls the member's narrative (memory.summaries._historical). Only notes
longer than VERBATIM_DAY summaries (a member who talked all day) are condensed, in one batched
call for every member that needs it, which bounds what a narrative reads. The messages are
never re-read as a whole. A day stays
closed while its stored fingerprint (message count, max message id) matches the messages table
and nobody marked it stale; "nothing to say" is stored too. Across processes the guild-day
advisory lock (bounded wait) keeps one process closing a day; the other re-checks the stored day.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import KW_ONLY, InitVar, dataclass
from datetime import date, datetime, timedelta

import asyncpg

from db import notes as notes_store
from db import summaries as store
from db.day_locks import guild_day_lock
from db.members import get_members
from db.types import Connection, fetch_one
from db.visibility import shared_source
from memory.core.cache import SingleFlight
from memory.core.clock import day_bounds
from memory.core.events import EventBus
from memory.core.telemetry import Telemetry
from memory.llm import (
    MemoryLLM,
    PromptMember,
    forgotten_constraints,
    reduce_elements,
    track_providers,
)
from memory.members import prompt_member
from memory.summaries._day_types import DayResult, SummaryConfig
from memory.summaries._forgetting import drop_guild_forgotten, load_guild_forgotten
from memory.summaries._notes import DayNotes
from memory.summaries._packing import pack, prompt_budget
from memory.summaries._stats import BuildStats

_log = logging.getLogger(__name__)

# A member's notes up to this many summary lengths are their day's summary as they are.
# Condensing every day over one length cost a call a day reading all of them again (4.3k
# tokens a guild-day at 5% addressed in bench/economy, for 7.3k of chat), for text read again by
# the narrative that rolls it; a few busier days are still condensed, so a narrative never
# reads a day longer than this.
VERBATIM_DAY = 4
# A day a fallback provider read is read again by the primary after this long.
DEGRADED_RETRY = timedelta(hours=1)


def _names(providers: list[str]) -> set[str]:
    return {name for label in providers for name in label.split("+")}


async def _still_stale(conn: Connection, guild_id: int, day: date) -> None:
    """A close that failed leaves a stale day marked stale, even when it was cancelled."""
    try:
        await asyncio.shield(store.mark_day_stale(conn, guild_id, day))
    except Exception:
        _log.warning("could not re-mark guild %s day %s stale", guild_id, day)


def join_notes(notes: list[str]) -> str:
    return " ".join(note.strip() for note in notes if note.strip())


@dataclass(eq=False)
class DailySummarizer:
    """Keeps `summary_days`/`daily_summaries` in step with the notes, one guild-day at a time."""

    pool: asyncpg.Pool
    llm: MemoryLLM
    settings: SummaryConfig
    _: KW_ONLY
    telemetry: Telemetry
    max_parallel_days: InitVar[int] = 3
    events: InitVar[EventBus | None] = None

    def __post_init__(self, max_parallel_days: int, events: EventBus | None) -> None:
        self.notes = DayNotes(
            self.pool, self.llm, self.settings.notes, telemetry=self.telemetry, events=events
        )
        self._flight: SingleFlight[tuple[int, date, bool], DayResult] = SingleFlight("daily")
        # Each day being closed pins a pool connection (the advisory lock) for its LLM calls.
        self._slots = asyncio.Semaphore(max_parallel_days)

    async def ensure_day(
        self,
        guild_id: int,
        day: date,
        timezone: str,
        *,
        force: bool = False,
        stats: BuildStats | None = None,
    ) -> DayResult:
        """The day's summaries, closing it first if its messages changed (or `force`: read
        every stretch again, e.g. after changing the model)."""
        stats = stats if stats is not None else BuildStats()
        result, shared = await self._flight.run(
            (guild_id, day, force), lambda: self._ensure(guild_id, day, timezone, force, stats)
        )
        stats.cache("daily", not result.computed or shared)
        return result

    async def aclose(self) -> None:
        await self._flight.aclose()
        await self.notes.aclose()

    async def _ensure(
        self, guild_id: int, day: date, timezone: str, force: bool, stats: BuildStats
    ) -> DayResult:
        start, end = day_bounds(day, timezone)
        state = (await store.day_states(self.pool, guild_id, [day], timezone, start, end))[day]
        if state.fresh and not force:
            summaries = await store.daily_summaries(self.pool, guild_id, day)
            return DayResult(guild_id, day, summaries, state.message_count)
        async with self._slots, guild_day_lock(self.pool, guild_id, day) as (conn, _):
            # Another process may have closed the day since the check above.
            state = (await store.day_states(conn, guild_id, [day], timezone, start, end))[day]
            if state.fresh and not force:
                summaries = await store.daily_summaries(conn, guild_id, day)
                return DayResult(guild_id, day, summaries, state.message_count)
            if state.expired:
                # Re-reading what retention left would replace the day with less (or nothing).
                summaries = await store.daily_summaries(conn, guild_id, day)
                return DayResult(
                    guild_id,
                    day,
                    summaries,
                    state.message_count,
                    reason="expired",
                    stored_messages=state.stored_count or 0,
                )
            reason = "forced" if force else state.reason
            return await self._close(conn, guild_id, day, timezone, reason, stats)

    async def _close(
        self,
        conn: Connection,
        guild_id: int,
        day: date,
        timezone: str,
        reason: str,
        stats: BuildStats,
    ) -> DayResult:
        start, end = day_bounds(day, timezone)
        was_stale = await store.clear_stale(conn, guild_id, day)
        calls_before = stats.total_llm_calls
        try:
            with self.telemetry.span(
                "daily_summary", guild_id=guild_id, day=day.isoformat(), reason=reason
            ) as event:
                if reason == "forced":
                    await notes_store.delete_passes(conn, guild_id, day)
                before = await self.notes.providers(conn, guild_id, day)
                fallbacks = self._fallback_names(_names(before))
                redo = fallbacks if reason == "degraded" else frozenset()
                with track_providers() as answered:
                    notes = await self.notes.fold_locked(
                        conn, guild_id, day, timezone, until=end, stats=stats, redo_providers=redo
                    )
                    summaries = await self._summaries(conn, guild_id, notes, stats)
                count, max_id = await self._fingerprint(conn, guild_id, start, end)
                passes = await self.notes.providers(conn, guild_id, day)
                provider, retry_in = self._provenance(set(answered) | _names(passes))
                calls = stats.total_llm_calls - calls_before
                event.update(messages=count, members=len(summaries), llm_calls=calls)
                await store.save_day(
                    conn,
                    guild_id,
                    day,
                    message_count=count,
                    max_message_id=max_id,
                    provider=provider,
                    summaries=summaries,
                    retry_in=retry_in,
                )
                if retry_in is not None:
                    event.update(outcome="degraded", provider=provider)
        except BaseException:
            if was_stale:  # the old summaries are still outdated: keep saying so
                await _still_stale(conn, guild_id, day)
            raise
        stats.days_summarised.append(day)
        return DayResult(
            guild_id,
            day,
            summaries,
            count,
            computed=True,
            reason=reason,
            chunks=len(passes),
            llm_calls=calls,
            targets=list(summaries),
        )

    @staticmethod
    async def _fingerprint(
        conn: Connection, guild_id: int, start: datetime, end: datetime
    ) -> tuple[int, int | None]:
        """What `summary_days` remembers of the messages a closed day was made from."""
        row = await fetch_one(
            conn,
            "SELECT count(*) AS n, max(message_id) AS max_id FROM messages m"
            " WHERE guild_id = $1 AND created_at >= $2 AND created_at < $3 AND NOT deleted"
            f" AND {shared_source('m')}",
            guild_id,
            start,
            end,
        )
        return int(row["n"]), row["max_id"]

    def _primary(self) -> str | None:
        chain_for = getattr(self.llm.provider, "chain_for", None)
        return chain_for("daily_summary")[0] if chain_for else None

    def _fallback_names(self, names: set[str]) -> frozenset[str]:
        primary = self._primary()
        return frozenset(name for name in names if primary is not None and name != primary)

    def _provenance(self, names: set[str]) -> tuple[str | None, timedelta | None]:
        """Who wrote the day, and when to retry it: a fallback's notes (offline while the
        primary model was down) are kept, but read again by the primary after DEGRADED_RETRY."""
        label = "+".join(sorted(names)) or getattr(self.llm.provider, "name", None)
        return label, DEGRADED_RETRY if self._fallback_names(names) else None

    async def _summaries(
        self,
        conn: Connection,
        guild_id: int,
        notes: dict[int, list[str]],
        stats: BuildStats,
    ) -> dict[int, str]:
        """Each member's day from their notes: verbatim up to VERBATIM_DAY summary lengths,
        else condensed (one call for as many members as fit a prompt)."""
        limit = self.settings.daily_summary_chars
        summaries: dict[int, str] = {}
        condense: dict[int, list[str]] = {}
        for user_id, member_notes in notes.items():
            joined = join_notes(member_notes)
            if len(joined) <= limit * VERBATIM_DAY:
                summaries[user_id] = joined
            else:
                condense[user_id] = member_notes
        if condense:
            summaries.update(await self._condense(conn, guild_id, condense, stats))
        guild_forgotten = await load_guild_forgotten(conn, guild_id)
        return {
            user_id: drop_guild_forgotten(text, user_id, guild_forgotten)[0]
            for user_id, text in summaries.items()
        }

    async def _condense(
        self,
        conn: Connection,
        guild_id: int,
        parts: dict[int, list[str]],
        stats: BuildStats,
    ) -> dict[int, str]:
        members = await get_members(conn, guild_id, sorted(parts))
        prompt_members = [prompt_member(user_id, members) for user_id in parts]
        guild_forgotten = await load_guild_forgotten(conn, guild_id)
        forgotten = {
            about.user_id: list(about.statements)
            for about in guild_forgotten
            if about.user_id in parts
        }
        summaries: dict[int, str] = {}
        for batch in self._reduce_batches(prompt_members, parts, forgotten):
            stats.llm("daily_reduce")
            summaries.update(
                await self.llm.summaries.reduce_daily(
                    guild_id=guild_id,
                    members=batch,
                    parts={member.user_id: parts[member.user_id] for member in batch},
                    max_chars=self.settings.daily_summary_chars,
                    forgotten={
                        m.user_id: forgotten[m.user_id] for m in batch if m.user_id in forgotten
                    },
                )
            )
        return summaries

    def _reduce_batches(
        self,
        members: list[PromptMember],
        parts: dict[int, list[str]],
        forgotten: dict[int, list[str]],
    ) -> list[list[PromptMember]]:
        """Members packed into as few condense prompts as fit the budget: one call per batch."""
        budget = prompt_budget(
            self.llm, "daily_reduce", "daily_reduce", self.settings.daily_prompt_max_chars
        )

        def size(member: PromptMember) -> int:
            return len(reduce_elements([member], parts)) + len(
                forgotten_constraints(forgotten.get(member.user_id, []))
            )

        return pack(members, size, budget)
