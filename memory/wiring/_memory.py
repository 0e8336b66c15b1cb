"""`Memory`: everything one process opened, by name; what `open_memory` yields.

A front end sees it through `memory.ports.FrontDoor` (the faces at the end of the class);
tests and benchmarks may reach every service and the pool.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from memory.commands import MemoryCommands
from memory.context import MemoryManager
from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.episodes import EpisodeService
from memory.facts import FactService
from memory.guilds import ChannelVisibility, GuildSettingsCache
from memory.ingest import BatchedWriter, StoredMessages
from memory.jobs import JobWorker
from memory.llm import MemoryLLM
from memory.members import MemberDirectory
from memory.ports import (
    Conversation,
    Imports,
    Operations,
)
from memory.privacy import PrivacyDesk, RetentionJob
from memory.recall import EmbeddingIndex, RecallService
from memory.replies import ReplyComposer, WindowKeeper
from memory.telemetry import UsageRollup
from memory.usage import DailyTokenBudget, UsageRecorder
from memory.wiring._caches import CrossProcessCaches


@dataclass(frozen=True, slots=True)
class Memory:
    """Everything one process opened (no service is ever missing); front ends use the
    faces at the end, through `memory.ports.FrontDoor`."""

    settings: Settings
    clock: Clock
    telemetry: Telemetry
    # The pool and the services are for tests and benchmarks; front ends use the faces.
    pool: asyncpg.Pool
    llm: MemoryLLM
    # Chat events into PostgreSQL, batched off the event loop's hot path.
    writer: BatchedWriter
    # Reads of stored messages that wait for the writer first (where a backfill starts).
    stored: StoredMessages
    # Per-guild settings (timezone, ignored channels, forget policy), cached for hot paths.
    guild_settings: GuildSettingsCache
    members: MemberDirectory
    # Member contexts (facts + today + days 2-7, merged), cached and persisted.
    manager: MemoryManager
    facts: FactService
    commands: MemoryCommands
    replies: ReplyComposer
    privacy: PrivacyDesk
    retention: RetentionJob
    # Today's LLM and cache usage, counted from telemetry for `/memory stats`.
    usage: UsageRollup
    # Full-text search over the guild's messages and day summaries.
    recall: RecallService
    # Invalidations published to, and heard from, the other processes on this database.
    caches: CrossProcessCaches
    # Background jobs on the PostgreSQL queue (closing days, retention, embeddings); started
    # by the bot unless RUN_WORKER=false, and by `memorybot worker`.
    worker: JobWorker
    # Message embeddings for semantic recall (inactive without EMBEDDING_PROVIDER or pgvector).
    embeddings: EmbeddingIndex
    # Which channels everyone can read (shared memory is built from those), kept by the bot.
    visibility: ChannelVisibility
    # Episodes per channel: listings, catch-up, the daily digest, the reply's working memory.
    episodes: EpisodeService
    # LLM calls and tokens per day written to `llm_usage` (`memorybot usage`), and the
    # LLM_DAILY_TOKEN_BUDGET that holds background work once the day's tokens are spent.
    usage_recorder: UsageRecorder
    token_budget: DailyTokenBudget
    # The faces a front end sees (memory.ports); bot/ is typed against `FrontDoor`.
    conversation: Conversation
    operations: Operations
    imports: Imports

    @property
    def window(self) -> WindowKeeper:
        """The channels' conversation windows (the reply composer's), as a front end hears."""
        return self.replies.keeper
