"""Background work of a memory process: retention, the job worker and the daily token budget.

Beside `_services.build_memory` so each stays small: these build the services that run on
their own once memory is open, and the named objects the worker calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import asyncpg

from memory.context import MemoryManager
from memory.core.clock import Clock
from memory.core.prices import Prices
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.episodes import EpisodeService
from memory.jobs import JobHandlers, JobWorker, WorkerConfig
from memory.llm import MemoryLLM
from memory.privacy import RetentionJob
from memory.recall import EmbeddingIndex
from memory.usage import DailyTokenBudget, UsageRecorder
from memory.wiring._caches import CrossProcessCaches


def open_usage(
    settings: Settings, telemetry: Telemetry, pool: asyncpg.Pool, llm: MemoryLLM
) -> tuple[UsageRecorder, DailyTokenBudget]:
    """LLM calls counted into `llm_usage`, and the daily token budget the chain consults."""
    recorder = UsageRecorder(pool, Prices.parse(settings.llm_prices))
    telemetry.add_sink(recorder)
    budget = DailyTokenBudget(pool, recorder, settings.llm_daily_token_budget)
    if hasattr(llm.provider, "gate"):  # the provider chain: background purposes wait on it
        llm.provider.gate = budget.allows
    return recorder, budget


def open_background(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    manager: MemoryManager,
    caches: CrossProcessCaches,
    embeddings: EmbeddingIndex,
    episodes: EpisodeService,
    budget: DailyTokenBudget,
) -> tuple[RetentionJob, JobWorker]:
    """Retention and the job worker that runs it, closes days for any process's guilds and
    embeds new messages."""
    retention = RetentionJob(
        pool,
        retention_days=settings.retention_days,
        clock=clock,
        telemetry=telemetry,
        batch_size=settings.retention_batch_size,
        interval=timedelta(hours=settings.retention_interval_hours),
    )

    worker = JobWorker(
        pool,
        JobHandlers(
            close_day=DayCloser(manager, caches, budget),
            retention=retention.run,
            embed_guild=GuildEmbedder(embeddings, budget),
            embeddings_on=embeddings.ready,
            episodes_sweep=episodes.sweep,
            summarize_episodes=episodes.summarize_guild,
            digest=episodes.run_digest,
        ),
        WorkerConfig.from_settings(settings),
        clock=clock,
        telemetry=telemetry,
    )
    return retention, worker


@dataclass(frozen=True, slots=True)
class DayCloser:
    """The worker's close of a guild-day: held once the day's tokens are spent (the day stays
    due, a sweep queues it again, tomorrow it closes); a closed day makes every process's warm
    contexts of the guild stale."""

    manager: MemoryManager
    caches: CrossProcessCaches
    budget: DailyTokenBudget

    async def __call__(self, guild_id: int, day: date) -> object:
        if await self.budget.exhausted():
            return None
        result = await self.manager.close_day(guild_id, day)
        if result.computed:
            self.caches.guild(guild_id)
        return result


@dataclass(frozen=True, slots=True)
class GuildEmbedder:
    """Embedding a guild waits for tomorrow once the daily token budget is spent."""

    embeddings: EmbeddingIndex
    budget: DailyTokenBudget

    async def __call__(self, guild_id: int, before: int | None) -> int | None:
        """A job's worth of the guild's messages from `before` on; where to go on from."""
        if not self.embeddings.local and await self.budget.exhausted():
            return None  # the local embedder spends no tokens
        return await self.embeddings.look_through(guild_id, before)
