"""Building one member's context: facts + history merged once a day, today's notes attached.

    1. today's notes: the guild's new messages read into notes, at most once per hour bucket
       (the TTL cache) and only now that someone of the guild is asked about;
    2. past days 2-7: closed from their notes when a day completed (no re-read of messages);
       closing the latest day also builds the histories of the guild's known members in one
       batched call;
    3. the 3-way XML merge with today left empty, i.e. facts + history, keyed by the content
       hash of its inputs, so it changes at most once a day or when a fact changes;
    4. today's notes attached verbatim after the merged text, within CONTEXT_MAX_CHARS.

Appending notes each hour therefore never forces another LLM merge. Everything is persisted
(passes and notes, closed days, histories, the merged text), so a restart costs no call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, InitVar, dataclass
from datetime import date, timedelta
from zoneinfo import ZoneInfo

import asyncpg
from cachetools import LRUCache

from db import contexts as context_store
from db import learned as learned_store
from db import summaries as store
from db.facts import get_forgotten
from db.learned import LearnedFact
from db.stored_memory import LearnedLine, StoredMemory, stored_memory
from memory.context._merge import HISTORY_DAYS, ContextInputs, ContextMerger, attached
from memory.core.cache import AsyncCache
from memory.core.clock import Clock, day_bounds, ensure_aware, local_day
from memory.core.telemetry import Telemetry
from memory.members import MemberReads, prompt_member
from memory.summaries import (
    BuildStats,
    DailySummarizer,
    HistoricalSummarizer,
    forgotten_about,
)

_log = logging.getLogger(__name__)

HOUR_SECONDS = 3600
# Room for learned facts in a context's facts (explicit facts are told, and come first).
LEARNED_CHARS = 500


@dataclass
class Built:
    inputs: ContextInputs
    parts: tuple[str, str]  # the merge, then what is attached after it (`attached`)
    stats: BuildStats


def with_learned(
    told: str, learned: Sequence[LearnedFact | LearnedLine], max_chars: int = LEARNED_CHARS
) -> str:
    """The facts a member was told (they win) followed by what chat revealed, most recently
    confirmed first, within `max_chars`, each marked with the day it was learned."""
    lines: list[str] = []
    used = 0
    for fact in learned:
        entry = f"{fact.statement.rstrip('.')} (learned {fact.last_seen.isoformat()})."
        if used + len(entry) + 1 > max_chars:
            break
        lines.append(entry)
        used += len(entry) + 1
    if not lines:
        return told
    section = "Learned from chat: " + " ".join(lines)
    return f"{told}\n{section}" if told else section


@dataclass(eq=False)
class ContextBuilder:
    """The build behind the MemoryManager's caches; one per manager."""

    pool: asyncpg.Pool
    daily: DailySummarizer
    history: HistoricalSummarizer
    merger: ContextMerger
    _: KW_ONLY
    max_chars: int
    cache_today_size: InitVar[int]
    cache_context_size: InitVar[int]
    clock: Clock
    telemetry: InitVar[Telemetry]
    timezone: Callable[[int], Awaitable[str]]
    reads: MemberReads

    def __post_init__(
        self, cache_today_size: int, cache_context_size: int, telemetry: Telemetry
    ) -> None:
        # Today's notes per guild, keyed by (guild, day, local hour): at most one pass an hour.
        self.today: AsyncCache[tuple[int, date, int], dict[int, list[str]]] = AsyncCache.ttl(
            "today",
            cache_today_size,
            HOUR_SECONDS,
            timer=lambda: self.clock.now().timestamp(),
            telemetry=telemetry,
        )
        self.contexts: AsyncCache[tuple[int, int, str], str | None] = AsyncCache.lru(
            "context", cache_context_size, telemetry=telemetry
        )
        # Today's entries dropped by `messages_changed` (read again without reading ahead).
        self._changed: set[tuple[int, date, int]] = set()
        # Content hash and day of each member's stored merged_contexts row, as far as this
        # process knows (the day says whom the bot was asked about lately: the closing batch).
        self._stored_hash: LRUCache[tuple[int, int], tuple[str, str | None]] = LRUCache(
            cache_context_size
        )

    async def aclose(self) -> None:
        await self.contexts.aclose()
        await self.history.cache.aclose()
        await self.today.aclose()
        await self.daily.aclose()

    async def build(self, guild_id: int, user_id: int) -> Built:
        stats = BuildStats()
        inputs, _ = await self.stored_inputs(guild_id, user_id)
        if not await self.reads.remembered(guild_id, user_id):
            return Built(inputs, ("", ""), stats)  # opted out (or not opted in): no memory at all
        today = inputs.today
        notes = await self._today_notes(guild_id, user_id, inputs.timezone, today, stats)
        inputs.today_text = inputs.clean(" ".join(notes.get(user_id, [])))
        # Today's pass may just have learned something about the member ("I moved to Paraty"):
        # this very build says it.
        learned = await learned_store.current_facts(self.pool, guild_id, user_id)
        inputs.facts = with_learned(inputs.told, learned)

        first, last = today - timedelta(days=HISTORY_DAYS), today - timedelta(days=1)
        closed = await self._refresh_days(guild_id, first, last, inputs.timezone, stats)
        if last in closed:
            await self._histories(guild_id, user_id, first, last, stats)
        stored = await store.member_daily_summaries(self.pool, guild_id, user_id, first, last)
        inputs.history_days = [day for day, _ in stored]
        days = [(day, inputs.clean(text)) for day, text in stored]
        history = await self.history.summary(
            guild_id, inputs.member, last, days, inputs.forgotten, stats
        )
        inputs.history_text = inputs.clean(history.narrative)
        inputs.newest_text = inputs.clean(history.newest)

        key_hash = inputs.content_hash(self.max_chars)
        merged, hit = await self.contexts.get_or_compute(
            (guild_id, user_id, key_hash),
            lambda: self._merge_or_load(guild_id, user_id, key_hash, inputs, stats),
            guild_id=guild_id,
            user_id=user_id,
        )
        stats.cache("context", hit)
        row_state = (key_hash, inputs.today.isoformat())
        if merged is not None and self._stored_hash.get((guild_id, user_id)) != row_state:
            # Served under an older state or day: the stored last-known-good row must follow
            # what is served, or a restart would merge it again, and it must carry today's
            # date, or the next closing batch would not know the member was asked about.
            await self._save(guild_id, user_id, merged, key_hash, inputs)
        parts = attached(merged, inputs.today_text, self.max_chars, newest=inputs.newest_text)
        return Built(inputs, parts, stats)

    async def _today_notes(
        self, guild_id: int, user_id: int, timezone: str, today: date, stats: BuildStats
    ) -> dict[int, list[str]]:
        """Today's notes: at most one pass per hour bucket, and none while the few messages
        not read yet do not concern the member asked about (their notes are already whole)."""
        hour = ensure_aware(self.clock.now()).astimezone(ZoneInfo(timezone)).hour
        key = (guild_id, today, hour)
        if self.today.peek(key) is None:
            waiting = await self.daily.notes.without_pass(
                guild_id, today, timezone, until=self.clock.now(), user_id=user_id
            )
            if waiting is not None:
                stats.cache("today", True)
                return waiting
        # Dropped because stored messages changed (an edit, a delete): only the changed
        # stretches are read again now; what is new waits for the hour's pass as before.
        read_new = key not in self._changed
        self._changed.discard(key)
        notes, hit = await self.today.get_or_compute(
            key,
            lambda: self.daily.notes.fold(
                guild_id, today, timezone, until=self.clock.now(), stats=stats, read_new=read_new
            ),
            guild_id=guild_id,
        )
        stats.cache("today", hit)
        return notes

    async def stored_inputs(
        self, guild_id: int, user_id: int
    ) -> tuple[ContextInputs, StoredMemory]:
        """What every context starts from (facts, forgotten statements, the member) and what
        is stored to serve without building (the fallback): one round trip for the member's
        own rows, the member and the guild's forgotten statements from the rows held."""
        timezone = await self.timezone(guild_id)
        members = await self.reads.members(guild_id, [user_id])
        guild_forgotten = forgotten_about(await self.reads.forgotten(guild_id))
        today = local_day(self.clock.now(), timezone)
        stored = await stored_memory(
            self.pool,
            guild_id,
            user_id,
            today=today,
            first_day=today - timedelta(days=HISTORY_DAYS),
            narrative_day=today - timedelta(days=1),
        )
        told = (stored.told or "").strip()
        inputs = ContextInputs(
            guild_id=guild_id,
            timezone=timezone,
            today=today,
            member=prompt_member(user_id, members),
            facts=with_learned(told, stored.learned),
            forgotten=stored.forgotten,
            guild_forgotten=guild_forgotten,
            told=told,
        )
        return inputs, stored

    async def _refresh_days(
        self, guild_id: int, first: date, last: date, timezone: str, stats: BuildStats
    ) -> set[date]:
        """Close every past day of the window that needs it (usually none); the days closed."""
        days = [first + timedelta(days=offset) for offset in range((last - first).days + 1)]
        start, end = day_bounds(first, timezone)[0], day_bounds(last, timezone)[1]
        states = await store.day_states(self.pool, guild_id, days, timezone, start, end)
        pending = [day for day in days if not states[day].fresh]
        for _ in range(len(days) - len(pending)):
            stats.cache("daily", True)
        if not pending:
            return set()
        results = await asyncio.gather(
            *(self.daily.ensure_day(guild_id, day, timezone, stats=stats) for day in pending),
            return_exceptions=True,
        )
        for result in results:  # every day got its chance; now report the first failure
            if isinstance(result, BaseException):
                raise result
        return {r.day for r in results if not isinstance(r, BaseException) and r.computed}

    async def batch_histories(self, guild_id: int, today: date) -> None:
        """Yesterday was just closed by a worker: build the histories of the members asked about
        lately in one batched call now, so their next request finds them ready."""
        first, last = today - timedelta(days=HISTORY_DAYS), today - timedelta(days=1)
        await self._histories(guild_id, None, first, last, BuildStats())

    async def _histories(
        self, guild_id: int, user_id: int | None, first: date, last: date, stats: BuildStats
    ) -> None:
        """The latest day just closed: one batched call builds the histories of the members
        the bot was asked about on that day (plus this one), not one call per member per
        request. Members asked about less often roll theirs on their next request."""
        known = await context_store.members_with_context(self.pool, guild_id, since=last)
        wanted = sorted({*known} if user_id is None else {user_id, *known})
        if not wanted:
            return
        members = await self.reads.members(guild_id, wanted)
        batch = {}
        days = {}
        for member_id in wanted:
            forgotten = await get_forgotten(self.pool, guild_id, member_id)
            batch[member_id] = (prompt_member(member_id, members), forgotten)
            days[member_id] = await store.member_daily_summaries(
                self.pool, guild_id, member_id, first, last
            )
        await self.history.batch(guild_id, last, batch, days, stats, asked_now=user_id)

    async def _merge_or_load(
        self, guild_id: int, user_id: int, key_hash: str, inputs: ContextInputs, stats: BuildStats
    ) -> str | None:
        stored = await context_store.get_merged_context(self.pool, guild_id, user_id)
        if stored is not None and stored.content_hash == key_hash:
            stats.cache("context_store", True)
            self._stored_hash[(guild_id, user_id)] = (key_hash, stored.sources.get("day"))
            return stored.context
        stats.cache("context_store", False)
        text = await self.merger.merge(
            guild_id,
            inputs.member,
            facts=inputs.facts,
            today="",  # today's notes are attached verbatim after the merge
            history=inputs.history_text,
            forgotten=inputs.forgotten,
            stats=stats,
        )
        if text is not None:
            text = inputs.clean(text) or None
        if text is not None:
            await self._save(guild_id, user_id, text, key_hash, inputs)
        return text

    async def _save(
        self, guild_id: int, user_id: int, text: str, key_hash: str, inputs: ContextInputs
    ) -> None:
        await context_store.save_merged_context(
            self.pool, guild_id, user_id, text, key_hash, inputs.sources_meta()
        )
        self._stored_hash[(guild_id, user_id)] = (key_hash, inputs.today.isoformat())

    def forget_member(self, guild_id: int, user_id: int) -> int:
        """Drop a member's cached merges and histories; returns entries dropped."""
        member = (guild_id, user_id)
        dropped = self.forget_merges(guild_id, user_id)
        # Today's notes of the guild are read again (a purge took the member's messages out;
        # the stretches that changed are re-read, the others cost one query).
        dropped += self.today.invalidate(lambda key: key[0] == guild_id)
        return dropped + self.history.cache.invalidate(lambda key: key[:2] == member)

    def forget_merges(self, guild_id: int, user_id: int) -> int:
        """Drop a member's cached merges only (their learned facts changed)."""
        member = (guild_id, user_id)
        return self.contexts.invalidate(lambda key: key[:2] == member)

    def messages_changed(self) -> None:
        """Stored messages were edited or deleted: today's notes held in memory may carry the
        old words, so they are read again (only the changed stretches) on next use."""

        def changed(key: tuple[int, date, int]) -> bool:
            self._changed.add(key)
            return True

        self.today.invalidate(changed)

    def day_changed(self, guild_id: int, day: date) -> None:
        self.today.invalidate(lambda key: key[0] == guild_id and key[1] == day)
