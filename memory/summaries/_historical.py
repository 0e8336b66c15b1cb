"""The historical summary: days 2-7 of one member rolled into one narrative, persisted.

Keyed by (guild, member, end day) plus a hash of its inputs (the daily texts and the forgotten
statements), so it is recomputed when the day rolls over, when a past day was re-summarised
after an edit, or after a forget - and never otherwise, across restarts too.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import date

import asyncpg

from db import summaries as store
from memory.core.cache import AsyncCache
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, PromptMember
from memory.summaries._daily import SummaryConfig
from memory.summaries._forgetting import drop_forgotten
from memory.summaries._stats import BuildStats

_log = logging.getLogger(__name__)

HistoryKey = tuple[int, int, date, str]


def history_source_hash(days: list[tuple[date, str]], forgotten: list[str], max_chars: int) -> str:
    payload = json.dumps(
        [[[day.isoformat(), text] for day, text in days], sorted(forgotten), max_chars],
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class HistoricalSummarizer:
    """Per-member narrative over days 2-7: in-process LRU, then the table, then one LLM call."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        llm: MemoryLLM,
        settings: SummaryConfig,
        *,
        telemetry: Telemetry,
    ) -> None:
        self._pool = pool
        self._llm = llm
        self._settings = settings
        self._telemetry = telemetry
        self.cache: AsyncCache[HistoryKey, str] = AsyncCache.lru(
            "history", settings.cache_history_size, telemetry=self._telemetry
        )

    async def summary(
        self,
        guild_id: int,
        member: PromptMember,
        end_day: date,
        days: list[tuple[date, str]],
        forgotten: list[str],
        stats: BuildStats,
    ) -> str:
        """The narrative for `days` (each day's summary of this member); "" when all are empty."""
        names = [member.name, *member.aliases]
        cleaned = [(day, drop_forgotten(text, forgotten, names)[0]) for day, text in days]
        cleaned = [(day, text) for day, text in cleaned if text.strip()]
        if not cleaned:
            return ""
        limit = self._settings.historical_summary_chars
        source_hash = history_source_hash(cleaned, forgotten, limit)
        key = (guild_id, member.user_id, end_day, source_hash)

        async def load_or_compute() -> str:
            stored = await store.get_historical(self._pool, guild_id, member.user_id, end_day)
            if stored is not None and stored[1] == source_hash:
                stats.cache("history_store", True)
                return stored[0]
            stats.cache("history_store", False)
            with self._telemetry.span(
                "historical_summary",
                guild_id=guild_id,
                user_id=member.user_id,
                end_day=end_day.isoformat(),
                days=len(cleaned),
            ) as event:
                stats.llm("historical_summary")
                text = await self._llm.summarize_history(
                    guild_id=guild_id,
                    member=member,
                    days=cleaned,
                    max_chars=limit,
                    forgotten=forgotten,
                )
                text, dropped = drop_forgotten(text, forgotten, names)
                event.update(chars=len(text), dropped_sentences=dropped or None)
            await store.save_historical(
                self._pool, guild_id, member.user_id, end_day, text, source_hash
            )
            return text

        text, hit = await self.cache.get_or_compute(
            key, load_or_compute, guild_id=guild_id, user_id=member.user_id
        )
        stats.cache("history", hit)
        return text

    async def batch(
        self,
        guild_id: int,
        end_day: date,
        members: dict[int, tuple[PromptMember, list[str]]],
        days: dict[int, list[tuple[date, str]]],
        stats: BuildStats,
    ) -> int:
        """Histories ending on `end_day` for many members in one call (a day just closed):
        `members` maps user id -> (member, forgotten statements), `days` their daily summaries.
        Members whose stored history is still current cost nothing. Returns members computed."""
        limit = self._settings.historical_summary_chars
        wanted: dict[int, list[tuple[date, str]]] = {}
        hashes: dict[int, str] = {}
        for user_id, (member, forgotten) in members.items():
            names = [member.name, *member.aliases]
            cleaned = [
                (d, drop_forgotten(text, forgotten, names)[0]) for d, text in days.get(user_id, [])
            ]
            cleaned = [(d, text) for d, text in cleaned if text.strip()]
            if not cleaned:
                continue
            source_hash = history_source_hash(cleaned, forgotten, limit)
            stored = await store.get_historical(self._pool, guild_id, user_id, end_day)
            if stored is not None and stored[1] == source_hash:
                continue
            wanted[user_id], hashes[user_id] = cleaned, source_hash
        if not wanted:
            return 0
        with self._telemetry.span(
            "historical_summary",
            guild_id=guild_id,
            end_day=end_day.isoformat(),
            members=len(wanted),
        ):
            stats.llm("historical_summary")
            texts = await self._llm.summarize_histories(
                guild_id=guild_id,
                members=[members[user_id][0] for user_id in wanted],
                days=wanted,
                max_chars=limit,
                forgotten={user_id: members[user_id][1] for user_id in wanted},
            )
        for user_id, text in texts.items():
            member, forgotten = members[user_id]
            text = drop_forgotten(text, forgotten, [member.name, *member.aliases])[0]
            await store.save_historical(
                self._pool, guild_id, user_id, end_day, text, hashes[user_id]
            )
        return len(wanted)
