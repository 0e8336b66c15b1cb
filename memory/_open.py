"""The composition root: `open_memory(settings)` opens everything once and closes it in order.

Every front end (the Discord client, the console, each CLI command) opens memory through this
function, so they share one wiring: database (embedded when DATABASE_URL is unset), migrations,
pool, LLM chain, the batched writer, every service, and the background jobs of the bot. On exit
things close in dependency order: background work is cancelled, the writer drains before the
pool closes, and the pool closes before the embedded server stops.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import asyncpg

from db.state import get_state, set_state
from memory._caches import CrossProcessCaches
from memory._database import open_configured_database
from memory.commands import CommandsConfig, MemoryCommands
from memory.context import ContextConfig, MemoryManager
from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.facts import FactsConfig, FactService
from memory.guilds import GuildDefaults, GuildSettingsCache
from memory.ingest import BatchedWriter, ExportImporter
from memory.jobs import JobHandlers, JobWorker, WorkerConfig
from memory.llm import MemoryLLM, OfflineProvider, SharedRateLimits, build_llm
from memory.members import MemberDirectory, NameIndexCache
from memory.privacy import PrivacyDesk, PrivacyHooks, RetentionJob
from memory.recall import Asking, EmbeddingIndex, RecallHit, RecallService, open_embedding_index
from memory.replies import ConversationWindows, ReplyComposer, ReplyConfig, Turn
from memory.telemetry import UsageRollup, attach_sinks, build_stats, render_stats

_log = logging.getLogger(__name__)

# Hits a reply's search brings (messages first, one lane kept for a day summary); the prompt's
# token budget then decides how many fit.
REPLY_RECALL_HITS = 5


@dataclass(frozen=True, slots=True)
class Memory:
    """Everything a front end needs, opened once per process; no service is ever missing."""

    settings: Settings
    clock: Clock
    telemetry: Telemetry
    # The pool is for tests and benchmarks; front ends go through the services below.
    pool: asyncpg.Pool
    llm: MemoryLLM
    # Chat events into PostgreSQL, batched off the event loop's hot path.
    writer: BatchedWriter
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

    def stats_text(self) -> str:
        """LLM usage, cache hit rates, queue depth and recent fallbacks, for an admin."""
        report = build_stats(
            self.usage,
            self.telemetry.recent(),
            now=datetime.now(UTC),
            queue_depth=self.writer.depth,
        )
        return render_stats(report)

    async def needs_command_sync(self, scope: str, tree_hash: str) -> bool:
        """Whether the slash command tree (its hash) differs from what was last synced to
        `scope` (global, or a guild): Discord rate-limits syncs, so unchanged trees are not."""
        return await get_state(self.pool, f"command_tree:{scope}") != tree_hash

    async def command_synced(self, scope: str, tree_hash: str) -> None:
        await set_state(self.pool, f"command_tree:{scope}", tree_hash)

    def importer(self, *, include_bots: bool) -> ExportImporter:
        """An importer for DiscordChatExporter files into this database."""
        return ExportImporter(
            self.pool,
            include_bots=include_bots,
            max_chars=self.settings.max_message_chars,
            default_timezone=self.settings.default_timezone,
            telemetry=self.telemetry,
        )


@asynccontextmanager
async def open_memory(
    settings: Settings,
    *,
    clock: Clock,
    telemetry: Telemetry | None = None,
    pool: asyncpg.Pool | None = None,
    llm: MemoryLLM | None = None,
    telemetry_stdout: bool | None = None,
    background: bool = False,
) -> AsyncIterator[Memory]:
    """Open memory as `settings` describe it.

    Tests and benchmarks may pass their own `telemetry` (no sinks are attached then), `pool`
    (no database is opened or migrated) and `llm` (used instead of the configured chain, and
    not closed here). `background` starts the bot's periodic jobs (retention).
    """
    async with AsyncExitStack() as stack:
        if telemetry is None:
            telemetry = Telemetry()
            stdout = settings.telemetry_stdout if telemetry_stdout is None else telemetry_stdout
            sinks = attach_sinks(
                telemetry,
                log_dir=settings.log_dir,
                stdout=stdout,
                max_bytes=settings.telemetry_file_max_bytes,
                backups=settings.telemetry_file_backups,
            )
            stack.callback(sinks.close)
        if pool is None:
            pool = await stack.enter_async_context(open_configured_database(settings))
        writer = _writer(pool, settings, telemetry)
        writer.start()
        stack.push_async_callback(writer.close)  # drained before the pool closes
        if llm is None:
            llm = build_llm(settings, telemetry, shared_limits=SharedRateLimits(pool))
            stack.push_async_callback(llm.provider.aclose)
        memory = _services(settings, clock, telemetry, pool, llm, writer)
        stack.push_async_callback(_close_services, memory)
        memory.caches.listener.start()
        if background and settings.run_worker:
            memory.worker.start()
        yield memory


async def migrate_database(settings: Settings) -> int:
    """Open the configured database, apply pending migrations; the schema version."""
    async with open_configured_database(settings) as pool:
        return int(await pool.fetchval("SELECT max(version) FROM schema_migrations"))


def _writer(pool: asyncpg.Pool, settings: Settings, telemetry: Telemetry) -> BatchedWriter:
    return BatchedWriter(
        pool,
        batch_size=settings.ingest_batch_size,
        flush_seconds=settings.ingest_flush_seconds,
        queue_max=settings.ingest_queue_max,
        default_timezone=settings.default_timezone,
        telemetry=telemetry,
    )


def _services(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    llm: MemoryLLM,
    writer: BatchedWriter,
) -> Memory:
    guild_settings = GuildSettingsCache(pool, GuildDefaults.from_settings(settings))
    manager = MemoryManager(
        pool, llm, ContextConfig.from_settings(settings), clock=clock, telemetry=telemetry
    )
    caches = CrossProcessCaches(pool, manager)
    guild_settings.on_change = caches.guild  # a new timezone moves day boundaries
    writer.on_messages_changed = caches.messages  # edits/deletes make days stale
    facts = FactService(
        pool,
        llm,
        FactsConfig.from_settings(settings),
        telemetry=telemetry,
        on_change=caches.member,
        fallback=MemoryLLM(OfflineProvider()),
    )
    whois_budget = settings.llm_timeout_seconds

    async def memories(guild_id: int, user_id: int) -> str | None:
        # What-do-you-know was asked for: wait for a build up to one LLM timeout.
        return await manager.get_memories(guild_id, user_id, budget=whois_budget)

    commands = MemoryCommands(
        pool,
        facts,
        llm,
        CommandsConfig.from_settings(settings),
        telemetry=telemetry,
        clock=clock,
        memories=memories,
        guild_settings=guild_settings,
    )

    async def resummarize(guild_id: int, day: date) -> object:
        result = await manager.summarize_day(guild_id, day, force=False)
        if result.computed:
            caches.guild(guild_id)  # other processes' contexts of the guild are stale too
        return result

    privacy = PrivacyDesk(
        pool,
        PrivacyHooks(flush_writes=writer.flush, invalidate=caches.member, resummarize=resummarize),
        default_timezone=settings.default_timezone,
        clock=clock,
        telemetry=telemetry,
    )
    embeddings = open_embedding_index(pool, settings, telemetry)
    retention, worker = _background(settings, clock, telemetry, pool, manager, caches, embeddings)
    usage = UsageRollup()
    usage.seed(telemetry.recent())
    telemetry.add_sink(usage)
    return Memory(
        settings=settings,
        clock=clock,
        telemetry=telemetry,
        pool=pool,
        llm=llm,
        writer=writer,
        guild_settings=guild_settings,
        members=MemberDirectory(pool),
        manager=manager,
        facts=facts,
        commands=commands,
        replies=_reply_composer(settings, clock, telemetry, pool, llm, manager, embeddings),
        privacy=privacy,
        retention=retention,
        usage=usage,
        recall=RecallService(pool, embeddings=embeddings, bot_name=settings.bot_name),
        caches=caches,
        worker=worker,
        embeddings=embeddings,
    )


def _background(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    manager: MemoryManager,
    caches: CrossProcessCaches,
    embeddings: EmbeddingIndex,
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

    async def close_day(guild_id: int, day: date) -> object:
        result = await manager.close_day(guild_id, day)
        if result.computed:
            caches.guild(guild_id)  # every process's warm contexts of the guild are stale
        return result

    worker = JobWorker(
        pool,
        JobHandlers(
            close_day=close_day,
            retention=retention.run,
            embed_guild=embeddings.index_guild,
            embeddings_on=embeddings.ready,
        ),
        WorkerConfig.from_settings(settings),
        clock=clock,
        telemetry=telemetry,
    )
    return retention, worker


def _reply_composer(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    llm: MemoryLLM,
    manager: MemoryManager,
    embeddings: EmbeddingIndex,
) -> ReplyComposer:
    """The reply path: per-channel windows folded by the LLM, memories within the budget."""
    # The window keeps its summary within a third of its token budget (~4 chars/token).
    fold_chars = settings.window_token_budget * 4 // 3

    async def fold(summary: str, turns: list[Turn]) -> str:
        return await llm.fold_window(
            summary=summary,
            turns=[turn.as_prompt_message() for turn in turns],
            max_chars=fold_chars,
            guild_id=None,
        )

    windows = ConversationWindows(
        fold,
        clock,
        token_budget=settings.window_token_budget,
        soft_decay=timedelta(minutes=settings.window_soft_decay_minutes),
        hard_decay=timedelta(minutes=settings.window_hard_decay_minutes),
        telemetry=telemetry,
    )
    directory = MemberDirectory(pool)
    names = NameIndexCache(directory.all)
    recall = RecallService(pool, names, embeddings, bot_name=settings.bot_name)

    async def recalled(
        guild_id: int, question: str, viewer: Viewer, asking: Asking
    ) -> list[RecallHit]:
        return await recall.search(
            guild_id, question, limit=REPLY_RECALL_HITS, viewer=viewer, asking=asking
        )

    return ReplyComposer(
        memory=manager,
        llm=llm,
        windows=windows,
        names=names,
        load_members=directory.get,
        config=ReplyConfig.from_settings(settings),
        telemetry=telemetry,
        recall=recalled,
    )


async def _close_services(memory: Memory) -> None:
    """Background work first (it may still use the LLM and the pool), then the caches."""
    await memory.worker.stop()
    await memory.embeddings.aclose()
    await memory.caches.aclose()
    await memory.retention.stop()
    await memory.privacy.aclose()
    await memory.guild_settings.aclose()
    await memory.manager.aclose()
    memory.telemetry.remove_sink(memory.usage)
