"""Daily summaries: one LLM call per guild-day covering every active member, persisted.

A day is summarised when its stored fingerprint (message count, max message id) no longer
matches the messages table, when an edit or delete marked it stale, or when forced. "Nothing to
say" is stored too, so a quiet member or day is never asked about again. Within a process one
task per guild-day does the work (single flight); across processes a PostgreSQL advisory lock
does, and the loser re-checks the stored day instead of paying for it twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

import asyncpg

from db import summaries as store
from db.members import get_members
from memory.core.cache import SingleFlight
from memory.core.clock import day_bounds
from memory.core.intent import is_memory_command
from memory.core.models import ChatMessage, Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import (
    MemoryLLM,
    PromptMember,
    PromptMessage,
    forgotten_constraints,
    member_elements,
    message_elements,
    reduce_elements,
    track_providers,
)
from memory.members import USER_MENTION, prompt_member, referenced_ids, render_messages
from memory.summaries._forgetting import drop_guild_forgotten, load_guild_forgotten
from memory.summaries._stats import BuildStats
from prompts.loader import template

_log = logging.getLogger(__name__)

# Room for the template's own text and JSON instructions around the messages.
_PROMPT_OVERHEAD = 200
# A day a fallback provider summarised is redone by the primary after this long.
DEGRADED_RETRY = timedelta(hours=1)
# Below this a chunk holds too little chat to be worth a call; a prompt may then run over.
_MIN_MESSAGE_BUDGET = 500


@dataclass(frozen=True)
class DayResult:
    """One guild-day's per-member summaries and how they were obtained."""

    guild_id: int
    day: date
    summaries: dict[int, str]
    message_count: int
    computed: bool = False
    reason: str = "fresh"
    chunks: int = 0
    llm_calls: int = 0
    targets: list[int] = field(default_factory=list)


def target_ids(messages: list[ChatMessage], members: dict[int, Member]) -> list[int]:
    """Members to summarise, in order of appearance: human authors and the humans they mention
    (so what others revealed about a quiet member is kept too)."""
    seen: dict[int, None] = {}
    for message in messages:
        if message.deleted:
            continue
        candidates = [message.author_id] if not message.author_is_bot else []
        candidates += list(message.mention_ids)
        candidates += [int(match) for match in USER_MENTION.findall(message.content)]
        for user_id in candidates:
            member = members.get(user_id)
            is_author = user_id == message.author_id
            if member is not None and member.is_bot:
                continue
            if member is None and not is_author:
                continue  # a mention of someone we know nothing about (or a role typo)
            seen.setdefault(user_id, None)
    return list(seen)


def chunk_messages(
    messages: list[PromptMessage],
    budget: int,
    *,
    involved: Callable[[PromptMessage], Iterable[int]] | None = None,
    member_sizes: Mapping[int, int] | None = None,
) -> list[list[PromptMessage]]:
    """Split time-ordered messages into runs whose rendered XML fits `budget` characters.

    A chunk's prompt lists only the members its messages involve, so each chunk also pays for
    the `<member>` element (`member_sizes`) of every member `involved` returns for its
    messages, once per chunk. A single message larger than the budget is cut so that no chunk
    ever exceeds it.
    """
    sizes = member_sizes or {}

    def members_cost(message: PromptMessage, present: set[int]) -> tuple[list[int], int]:
        new = [uid for uid in dict.fromkeys(involved(message)) if uid not in present]
        return new, sum(sizes.get(uid, 0) for uid in new)

    chunks: list[list[PromptMessage]] = []
    current: list[PromptMessage] = []
    present: set[int] = set()
    used = 0
    for message in messages:
        size = len(message_elements([message])) + 1
        new, extra = members_cost(message, set()) if involved else ([], 0)
        if size + extra > budget:
            keep = max(0, len(message.content) - (size + extra - budget) - 1)
            message = message.model_copy(update={"content": message.content[:keep] + "…"})
            size = len(message_elements([message])) + 1
        if involved:
            new, extra = members_cost(message, present)
        if current and used + size + extra > budget:
            chunks.append(current)
            current, used, present = [], 0, set()
            if involved:
                new, extra = members_cost(message, present)
        current.append(message)
        present.update(new)
        used += size + extra
    if current:
        chunks.append(current)
    return chunks


@dataclass(frozen=True, slots=True)
class SummaryConfig:
    """What the summarisers read of the settings: lengths, the prompt budget, the history cache
    and the bot's name (memory commands addressed to it are left out of a day)."""

    bot_name: str = "Bot"
    daily_summary_chars: int = 300
    historical_summary_chars: int = 500
    daily_prompt_max_chars: int = 60_000
    cache_history_size: int = 4096

    @classmethod
    def from_settings(cls, settings: Settings) -> SummaryConfig:
        return cls(
            bot_name=settings.bot_name,
            daily_summary_chars=settings.daily_summary_chars,
            historical_summary_chars=settings.historical_summary_chars,
            daily_prompt_max_chars=settings.daily_prompt_max_chars,
            cache_history_size=settings.cache_history_size,
        )


class DailySummarizer:
    """Keeps `summary_days`/`daily_summaries` in step with the messages, one guild-day at a time."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        llm: MemoryLLM,
        settings: SummaryConfig,
        *,
        telemetry: Telemetry,
        max_parallel_days: int = 3,
    ) -> None:
        self._pool = pool
        self._llm = llm
        self._settings = settings
        self._telemetry = telemetry
        self._flight: SingleFlight[tuple[int, date, bool], DayResult] = SingleFlight("daily")
        # Each day being summarised pins a pool connection (the advisory lock) for the LLM call.
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
        """The day's summaries, summarising it first if its messages changed (or `force`)."""
        stats = stats if stats is not None else BuildStats()
        result, shared = await self._flight.run(
            (guild_id, day, force), lambda: self._ensure(guild_id, day, timezone, force, stats)
        )
        stats.cache("daily", not result.computed or shared)
        return result

    async def aclose(self) -> None:
        await self._flight.aclose()

    async def _ensure(
        self, guild_id: int, day: date, timezone: str, force: bool, stats: BuildStats
    ) -> DayResult:
        start, end = day_bounds(day, timezone)
        state = (await store.day_states(self._pool, guild_id, [day], timezone, start, end))[day]
        if state.fresh and not force:
            summaries = await store.daily_summaries(self._pool, guild_id, day)
            return DayResult(guild_id, day, summaries, state.message_count)
        async with self._slots, store.guild_day_lock(self._pool, guild_id, day) as (conn, waited):
            if not force:
                # Another process may have stored this day since the check above, whether we
                # waited for its lock (`waited`) or it finished just before we asked.
                state = (await store.day_states(conn, guild_id, [day], timezone, start, end))[day]
                if state.fresh:
                    _log.debug(
                        "guild %s day %s stored meanwhile (waited=%s)", guild_id, day, waited
                    )
                    summaries = await store.daily_summaries(conn, guild_id, day)
                    return DayResult(guild_id, day, summaries, state.message_count)
            reason = "forced" if force else state.reason
            return await self._recompute(conn, guild_id, day, timezone, reason, stats)

    async def _recompute(
        self,
        conn: asyncpg.Connection,
        guild_id: int,
        day: date,
        timezone: str,
        reason: str,
        stats: BuildStats,
    ) -> DayResult:
        start, end = day_bounds(day, timezone)
        was_stale = await store.clear_stale(conn, guild_id, day)
        try:
            messages = await store.day_messages(conn, guild_id, start, end)
            max_id = max((message.message_id for message in messages), default=None)
            with self._telemetry.span(
                "daily_summary", guild_id=guild_id, day=day.isoformat(), reason=reason
            ) as event:
                with track_providers() as answered:
                    summaries, chunks, calls, targets = await self._summarize(
                        conn, guild_id, day, timezone, messages, stats
                    )
                provider, retry_in = self._provenance(answered)
                event.update(messages=len(messages), members=len(targets), chunks=chunks)
                event.update(llm_calls=calls)
                await store.save_day(
                    conn,
                    guild_id,
                    day,
                    message_count=len(messages),
                    max_message_id=max_id,
                    provider=provider,
                    summaries=summaries,
                    retry_in=retry_in,
                )
                if retry_in is not None:
                    event.update(outcome="degraded", provider=provider)
        except BaseException:
            if was_stale:  # the old summaries are still outdated: keep saying so
                try:
                    await asyncio.shield(store.mark_day_stale(conn, guild_id, day))
                except Exception:
                    _log.warning("could not re-mark guild %s day %s stale", guild_id, day)
            raise
        stats.days_summarised.append(day)
        return DayResult(
            guild_id,
            day,
            summaries,
            len(messages),
            computed=True,
            reason=reason,
            chunks=chunks,
            llm_calls=calls,
            targets=targets,
        )

    def _provenance(self, answered: list[str]) -> tuple[str | None, timedelta | None]:
        """Who wrote the day, and when to retry it: a fallback's summary (offline while the
        primary model was down) is kept, but redone by the primary after DEGRADED_RETRY."""
        names = sorted(set(answered))
        chain_for = getattr(self._llm.provider, "chain_for", None)
        primary = chain_for("daily_summary")[0] if chain_for else None
        label = "+".join(names) or getattr(self._llm.provider, "name", None)
        degraded = primary is not None and any(name != primary for name in names)
        return label, DEGRADED_RETRY if degraded else None

    async def _summarize(
        self,
        conn: asyncpg.Connection,
        guild_id: int,
        day: date,
        timezone: str,
        messages: list[ChatMessage],
        stats: BuildStats,
    ) -> tuple[dict[int, str], int, int, list[int]]:
        """(summaries, chunks, llm calls, targets) for one day's messages."""
        bot_name = self._settings.bot_name
        messages = [m for m in messages if not is_memory_command(m.content, bot_name=bot_name)]
        if not messages:
            return {}, 0, 0, []
        members = await get_members(conn, guild_id, sorted(referenced_ids(messages)))
        targets = target_ids(messages, members)
        if not targets:
            return {}, 0, 0, []
        rendered = render_messages(messages, members)
        guild_forgotten = await load_guild_forgotten(conn, guild_id)
        forgotten = {
            about.user_id: list(about.statements)
            for about in guild_forgotten
            if about.user_id in targets
        }
        prompt_members = [prompt_member(user_id, members) for user_id in targets]
        originals = {message.message_id: message for message in messages}
        chunks = chunk_messages(
            rendered,
            self._message_budget(forgotten),
            involved=lambda item: _involved_ids(originals[item.message_id]),
            member_sizes={m.user_id: len(member_elements([m])) + 1 for m in prompt_members},
        )
        calls = 0
        limit = self._settings.daily_summary_chars

        async def one_chunk(index: int, chunk: list[PromptMessage]) -> dict[int, str]:
            nonlocal calls
            present = _present_ids(chunk, originals) if len(chunks) > 1 else set(targets)
            wanted = [member for member in prompt_members if member.user_id in present]
            if not wanted:
                return {}
            calls += 1
            stats.llm("daily_summary")
            return await self._llm.summarize_day(
                guild_id=guild_id,
                day=day,
                timezone=timezone,
                messages=chunk,
                members=wanted,
                max_chars=limit,
                forgotten={k: v for k, v in forgotten.items() if k in present},
                part=f"{index + 1}/{len(chunks)}",
            )

        parts = await asyncio.gather(*(one_chunk(i, chunk) for i, chunk in enumerate(chunks)))
        summaries: dict[int, str] = {}
        reduce_jobs: dict[int, list[str]] = {}
        for member in prompt_members:
            texts = [part[member.user_id] for part in parts if part.get(member.user_id)]
            if len(texts) > 1:
                reduce_jobs[member.user_id] = texts
            else:
                summaries[member.user_id] = texts[0] if texts else ""
        if reduce_jobs:
            batches = self._reduce_batches(
                [member for member in prompt_members if member.user_id in reduce_jobs],
                reduce_jobs,
                forgotten,
            )

            async def reduce(batch: list[PromptMember]) -> dict[int, str]:
                stats.llm("daily_reduce")
                return await self._llm.reduce_daily(
                    guild_id=guild_id,
                    members=batch,
                    parts={member.user_id: reduce_jobs[member.user_id] for member in batch},
                    max_chars=limit,
                    forgotten={
                        m.user_id: forgotten[m.user_id] for m in batch if m.user_id in forgotten
                    },
                )

            calls += len(batches)
            for reduced in await asyncio.gather(*(reduce(batch) for batch in batches)):
                summaries.update(reduced)
        for user_id, text in summaries.items():  # the model may not have obeyed the constraints
            summaries[user_id] = drop_guild_forgotten(text, user_id, guild_forgotten)[0]
        return summaries, len(chunks), calls, targets

    def _reduce_batches(
        self,
        members: list[PromptMember],
        parts: dict[int, list[str]],
        forgotten: dict[int, list[str]],
    ) -> list[list[PromptMember]]:
        """Members whose day spans chunks, packed into as few reduce prompts as fit the budget:
        one call per batch, not one per member."""
        budget = self._settings.daily_prompt_max_chars - len(template("daily_reduce"))
        batches: list[list[PromptMember]] = []
        current: list[PromptMember] = []
        used = 0
        for member in members:
            size = len(reduce_elements([member], parts)) + len(
                forgotten_constraints(forgotten.get(member.user_id, []))
            )
            if current and used + size > budget:
                batches.append(current)
                current, used = [], 0
            current.append(member)
            used += size
        if current:
            batches.append(current)
        return batches

    def _message_budget(self, forgotten: dict[int, list[str]]) -> int:
        """Characters left for a chunk's messages and members once the template and
        constraints are in (`chunk_messages` charges each chunk for its own members)."""
        statements = [statement for items in forgotten.values() for statement in items]
        overhead = (
            len(template("daily_summary"))
            + len(forgotten_constraints(statements))
            + _PROMPT_OVERHEAD
        )
        return max(_MIN_MESSAGE_BUDGET, self._settings.daily_prompt_max_chars - overhead)


def _involved_ids(message: ChatMessage) -> list[int]:
    """Everyone one message involves: its author and the members it mentions."""
    ids = [message.author_id, *message.mention_ids]
    ids += [int(match) for match in USER_MENTION.findall(message.content)]
    return ids


def _present_ids(chunk: list[PromptMessage], originals: dict[int, ChatMessage]) -> set[int]:
    """Everyone a chunk involves: its authors and the members its messages mention."""
    present: set[int] = set()
    for rendered in chunk:
        present.update(_involved_ids(originals[rendered.message_id]))
    return present
