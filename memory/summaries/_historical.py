"""The historical summary: days 2-7 of one member rolled into one narrative, persisted.

Keyed by (guild, member, end day) plus a hash of its inputs (the daily texts and the forgotten
statements), so it is recomputed when the day rolls over, when a past day was re-summarised
after an edit, or after a forget - and never otherwise, across restarts too.

A new narrative is rolled forward: the model reads the member's latest stored narrative
(ending within the window) plus only the days after it, not six daily summaries again. The
earlier narrative is trusted only while its own hash still matches its days and forgotten
statements; after an edit, a delete or a forget the six days are read afresh. A member silent
since their latest narrative keeps it as it is (no call).

A narrative up to ATTACH_DAYS behind is served with the newer days' summaries attached verbatim
(after the merge, like today's notes, so they never force one, and cut to the context's budget
like them): no call, not stored. So a member asked about who was not in a closed day's batch
costs no call of their own, and the batch when a day closes rolls only the member whose request
closed it and those asked about that day whose narrative is further behind. Only a member with
no usable earlier narrative, or more days to roll in, gets a call of their own.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import KW_ONLY, dataclass
from datetime import date, timedelta

import asyncpg

from db import historical
from db import summaries as store
from memory.core.cache import AsyncCache
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, PromptMember, forgotten_constraints, history_elements
from memory.summaries._day_types import SummaryConfig
from memory.summaries._forgetting import drop_forgotten
from memory.summaries._packing import pack, prompt_budget
from memory.summaries._stats import BuildStats

_log = logging.getLogger(__name__)

HistoryKey = tuple[int, int, date, str]
# Days one narrative covers (days 2-7 before today): the window a previous one must end in.
WINDOW_DAYS = 6
# Days a narrative may lag with the newer ones attached verbatim instead of rolled in: two
# halve the rolls of members asked about every day or two (bench/economy: 23.0k -> 21.5k
# tokens a guild-day at 5% addressed), and a narrative's oldest day is then at most two days
# past the window (the news in those days is there verbatim, not summarised).
ATTACH_DAYS = 2


@dataclass(frozen=True, slots=True)
class History:
    """A member's days 2-7: the narrative, and the newer days verbatim when the narrative is up
    to ATTACH_DAYS behind (`Mar 3: text`, a line each; attached after the merge, like today's
    notes, so they never force one)."""

    narrative: str = ""
    newest: str = ""


@dataclass(frozen=True, slots=True)
class HistoryPlan:
    """What the model reads for one narrative: the days after `previous` (all of them when
    there is no usable earlier narrative), and that earlier narrative (end day, text)."""

    source_hash: str
    days: list[tuple[date, str]]
    previous: tuple[date, str] | None = None


def clean_days(
    days: list[tuple[date, str]], forgotten: list[str], names: list[str]
) -> list[tuple[date, str]]:
    """Daily texts without forgotten statements, empty days left out."""
    cleaned = [(day, drop_forgotten(text, forgotten, names)[0]) for day, text in days]
    return [(day, text) for day, text in cleaned if text.strip()]


def history_source_hash(days: list[tuple[date, str]], forgotten: list[str], max_chars: int) -> str:
    payload = json.dumps(
        [[[day.isoformat(), text] for day, text in days], sorted(forgotten), max_chars],
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass(eq=False)
class HistoricalSummarizer:
    """Per-member narrative over days 2-7: in-process LRU, then the table, then one LLM call."""

    pool: asyncpg.Pool
    llm: MemoryLLM
    settings: SummaryConfig
    _: KW_ONLY
    telemetry: Telemetry

    def __post_init__(self) -> None:
        self.cache: AsyncCache[HistoryKey, History] = AsyncCache.lru(
            "history", self.settings.cache_history_size, telemetry=self.telemetry
        )

    async def plan(
        self,
        guild_id: int,
        member: PromptMember,
        end_day: date,
        cleaned: list[tuple[date, str]],
        forgotten: list[str],
    ) -> HistoryPlan:
        """Roll forward from the latest narrative still true to its days, else read them all."""
        limit = self.settings.historical_summary_chars
        source_hash = history_source_hash(cleaned, forgotten, limit)
        first = end_day - timedelta(days=WINDOW_DAYS - 1)
        row = await historical.rollable_historical(
            self.pool, guild_id, member.user_id, first, end_day - timedelta(days=1)
        )
        if row is None:
            return HistoryPlan(source_hash, cleaned)
        base_end, text, base_hash = row
        names = [member.name, *member.aliases]
        base_days = await store.member_daily_summaries(
            self.pool,
            guild_id,
            member.user_id,
            base_end - timedelta(days=WINDOW_DAYS - 1),
            base_end,
        )
        if (
            history_source_hash(clean_days(base_days, forgotten, names), forgotten, limit)
            != base_hash
        ):
            return HistoryPlan(source_hash, cleaned)  # a day or a forget changed since
        text = drop_forgotten(text, forgotten, names)[0].strip()
        newer = [(day, day_text) for day, day_text in cleaned if day > base_end]
        if not text:
            return HistoryPlan(source_hash, cleaned)
        return HistoryPlan(source_hash, newer, (base_end, text))

    async def _compute(
        self,
        guild_id: int,
        member: PromptMember,
        end_day: date,
        plan: HistoryPlan,
        forgotten: list[str],
        stats: BuildStats,
    ) -> str:
        """One narrative: the earlier one kept when nothing new came, else one LLM call."""
        names = [member.name, *member.aliases]
        if plan.previous is not None and not plan.days:
            return plan.previous[1]  # silent since: nothing to roll in
        with self.telemetry.span(
            "historical_summary",
            guild_id=guild_id,
            user_id=member.user_id,
            end_day=end_day.isoformat(),
            days=len(plan.days),
            rolled=plan.previous is not None,
        ) as event:
            stats.llm("historical_summary")
            text = await self.llm.summaries.summarize_history(
                guild_id=guild_id,
                member=member,
                days=plan.days,
                max_chars=self.settings.historical_summary_chars,
                forgotten=forgotten,
                previous=plan.previous,
                start_day=end_day - timedelta(days=WINDOW_DAYS - 1),
            )
            text, dropped = drop_forgotten(text, forgotten, names)
            event.update(chars=len(text), dropped_sentences=dropped or None)
        return text

    async def summary(
        self,
        guild_id: int,
        member: PromptMember,
        end_day: date,
        days: list[tuple[date, str]],
        forgotten: list[str],
        stats: BuildStats,
    ) -> History:
        """The history for `days` (each day's summary of this member); empty when all are."""
        cleaned = clean_days(days, forgotten, [member.name, *member.aliases])
        if not cleaned:
            return History()
        limit = self.settings.historical_summary_chars
        source_hash = history_source_hash(cleaned, forgotten, limit)
        key = (guild_id, member.user_id, end_day, source_hash)

        async def load_or_compute() -> History:
            stored = await historical.get_historical(self.pool, guild_id, member.user_id, end_day)
            if stored is not None and stored[1] == source_hash:
                stats.cache("history_store", True)
                return History(stored[0])
            stats.cache("history_store", False)
            plan = await self.plan(guild_id, member, end_day, cleaned, forgotten)
            attached = self.attached(plan)
            if attached is not None:
                stats.cache("history_attached", True)
                return attached
            text = await self._compute(guild_id, member, end_day, plan, forgotten, stats)
            await historical.save_historical(
                self.pool, guild_id, member.user_id, end_day, text, source_hash
            )
            return History(text)

        history, hit = await self.cache.get_or_compute(
            key, load_or_compute, guild_id=guild_id, user_id=member.user_id
        )
        stats.cache("history", hit)
        return history

    @staticmethod
    def attached(plan: HistoryPlan) -> History | None:
        """The earlier narrative followed by the newer days verbatim (`Mar 3: text`, a line
        each), when the narrative is at most ATTACH_DAYS behind; else None. The context keeps
        what fits its budget after facts and narrative, as it does with today's notes."""
        if plan.previous is None or not 1 <= len(plan.days) <= ATTACH_DAYS:
            return None
        newer = "\n".join(f"{day:%b} {day.day}: {text.strip()}" for day, text in plan.days)
        return History(plan.previous[1].strip(), newer)

    async def batch(
        self,
        guild_id: int,
        end_day: date,
        members: dict[int, tuple[PromptMember, list[str]]],
        days: dict[int, list[tuple[date, str]]],
        stats: BuildStats,
        *,
        asked_now: int | None = None,
    ) -> int:
        """Histories ending on `end_day` for many members in one call (a day just closed):
        `members` maps user id -> (member, forgotten statements), `days` their daily summaries.
        Members whose stored history is still current cost nothing, nor do members silent since
        their latest narrative, nor (except `asked_now`, whose request closed the day) members
        at most ATTACH_DAYS behind: they are served attached. Returns members computed."""
        plans: dict[int, HistoryPlan] = {}
        for user_id, (member, forgotten) in members.items():
            cleaned = clean_days(days.get(user_id, []), forgotten, [member.name, *member.aliases])
            if not cleaned:
                continue
            limit = self.settings.historical_summary_chars
            stored = await historical.get_historical(self.pool, guild_id, user_id, end_day)
            if stored is not None and stored[1] == history_source_hash(cleaned, forgotten, limit):
                continue
            plan = await self.plan(guild_id, member, end_day, cleaned, forgotten)
            if user_id != asked_now and self.attached(plan) is not None:
                continue  # served attached if asked again; rolled once the days outgrow that
            if plan.previous is not None and not plan.days:
                await historical.save_historical(
                    self.pool, guild_id, user_id, end_day, plan.previous[1], plan.source_hash
                )
                continue
            plans[user_id] = plan
        budget = prompt_budget(
            self.llm,
            "historical_summary",
            "historical_batch",
            self.settings.daily_prompt_max_chars,
        )
        for user_ids in pack(
            list(plans), lambda uid: _element_size(members[uid], plans[uid]), budget
        ):
            await self._roll(
                guild_id, end_day, members, {uid: plans[uid] for uid in user_ids}, stats
            )
        return len(plans)

    async def _roll(
        self,
        guild_id: int,
        end_day: date,
        members: dict[int, tuple[PromptMember, list[str]]],
        plans: dict[int, HistoryPlan],
        stats: BuildStats,
    ) -> None:
        """One call rolling (or writing) the narratives of `plans`' members, stored."""
        with self.telemetry.span(
            "historical_summary",
            guild_id=guild_id,
            end_day=end_day.isoformat(),
            members=len(plans),
            rolled=sum(plan.previous is not None for plan in plans.values()),
        ):
            stats.llm("historical_summary")
            texts = await self.llm.summaries.summarize_histories(
                guild_id=guild_id,
                members=[members[user_id][0] for user_id in plans],
                days={user_id: plan.days for user_id, plan in plans.items()},
                max_chars=self.settings.historical_summary_chars,
                forgotten={user_id: members[user_id][1] for user_id in plans},
                previous={
                    user_id: plan.previous
                    for user_id, plan in plans.items()
                    if plan.previous is not None
                },
                start_day=end_day - timedelta(days=WINDOW_DAYS - 1),
            )
        for user_id, text in texts.items():
            member, forgotten = members[user_id]
            text = drop_forgotten(text, forgotten, [member.name, *member.aliases])[0]
            await historical.save_historical(
                self.pool, guild_id, user_id, end_day, text, plans[user_id].source_hash
            )


def _element_size(member: tuple[PromptMember, list[str]], plan: HistoryPlan) -> int:
    """The characters a member takes in a closing batch's prompt: their element as rendered
    there, and the statements they forgot."""
    person, forgotten = member
    previous = {person.user_id: plan.previous} if plan.previous is not None else {}
    element = history_elements([person], {person.user_id: plan.days}, previous)
    return len(element) + len(forgotten_constraints(forgotten))
