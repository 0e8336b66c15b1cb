"""The composition root: `open_memory(settings)` opens everything once and closes it in order.

Every front end (the Discord client, the console, each CLI command) opens memory through this
function, so they share one wiring: database (embedded when DATABASE_URL is unset), migrations,
pool, LLM chain, the batched writer, every service, and the background jobs of the bot. On exit
things close in dependency order: background work is cancelled, the writer drains before the
pool closes, and the pool closes before the embedded server stops.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import asyncpg

from db.state import get_state, set_state
from db.usage import usage_since
from memory._background import open_background, open_usage
from memory._caches import CrossProcessCaches
from memory._database import open_configured_database
from memory._replies import open_reply_composer
from memory._shards import hold_shards
from memory.commands import CommandsConfig, MemoryCommands
from memory.context import ContextConfig, MemoryManager
from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.episodes import EpisodeService
from memory.facts import FactsConfig, FactService
from memory.guilds import ChannelVisibility, GuildDefaults, GuildSettingsCache
from memory.ingest import BatchedWriter, ExportImporter
from memory.jobs import JobWorker
from memory.llm import MemoryLLM, OfflineProvider, build_llm
from memory.members import HeldMembers, MemberConsent, MemberDirectory, NameIndexCache
from memory.privacy import PrivacyDesk, PrivacyHooks, RetentionJob
from memory.recall import EmbeddingIndex, RecallService, open_embedding_index
from memory.replies import ReplyComposer
from memory.telemetry import UsageRollup, attach_sinks, build_stats, render_stats
from memory.usage import DailyTokenBudget, UsageRecorder, render_usage

_log = logging.getLogger(__name__)


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
    # Which channels everyone can read (shared memory is built from those), kept by the bot.
    visibility: ChannelVisibility
    # Episodes per channel: listings, catch-up, the daily digest, the reply's working memory.
    episodes: EpisodeService
    # LLM calls and tokens per day written to `llm_usage` (`memorybot usage`), and the
    # LLM_DAILY_TOKEN_BUDGET that holds background work once the day's tokens are spent.
    usage_recorder: UsageRecorder
    token_budget: DailyTokenBudget

    def stats_text(self) -> str:
        """LLM usage, cache hit rates, queue depth and recent fallbacks, for an admin."""
        report = build_stats(
            self.usage,
            self.telemetry.recent(),
            now=datetime.now(UTC),
            queue_depth=self.writer.depth,
        )
        return render_stats(report) + "\n" + self.usage_recorder.today_line()

    async def usage_text(self, *, guild_id: int | None, days: int, label: str = "") -> str:
        """`memorybot usage`: the last `days` UTC days of LLM calls, tokens and estimated cost
        (`label`: the guild as the admin knows it)."""
        await self.usage_recorder.flush()  # this process's own calls count too
        first_day = datetime.now(UTC).date() - timedelta(days=days - 1)
        rows = await usage_since(self.pool, first_day, guild_id=guild_id)
        scope = label or (f"guild {guild_id}" if guild_id is not None else "all guilds")
        return render_usage(rows, self.usage_recorder.prices, first_day=first_day, scope=scope)

    async def needs_command_sync(self, scope: str, tree_hash: str) -> bool:
        """Whether the slash command tree (its hash) differs from what was last synced to
        `scope` (global, or a guild): Discord rate-limits syncs, so unchanged trees are not."""
        return await get_state(self.pool, f"command_tree:{scope}") != tree_hash

    async def command_synced(self, scope: str, tree_hash: str) -> None:
        await set_state(self.pool, f"command_tree:{scope}", tree_hash)

    def claim_shards(
        self, on_lost: Callable[[], None] | None = None, *, watch_seconds: float = 15.0
    ) -> AbstractAsyncContextManager[None]:
        """Hold this process's shards (SHARD_COUNT/SHARD_IDS) while the block runs; raises
        ShardTaken, naming the holder, when another live process runs one of them. `on_lost`
        is called if another process took them after the database session was lost."""
        return hold_shards(
            self.pool, self.settings.shards, on_lost=on_lost, watch_seconds=watch_seconds
        )

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
            llm = build_llm(settings, telemetry, pool=pool)
            stack.push_async_callback(llm.provider.aclose)
        memory = _services(settings, clock, telemetry, pool, llm, writer)
        stack.push_async_callback(_close_services, memory)
        memory.caches.listener.start()
        memory.usage_recorder.start()
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
    # One member directory for the reply path, recall and episodes, its rows kept a minute, and
    # members' consent and forgotten statements kept as long; every member change drops them
    # in every process, and a rename the writer stores at once in this one.
    held = HeldMembers.open(pool, telemetry=telemetry)
    members, consent = held.directory, held.consent
    manager = MemoryManager(
        pool,
        llm,
        ContextConfig.from_settings(settings),
        clock=clock,
        telemetry=telemetry,
        reads=held.reads(),
    )
    caches = CrossProcessCaches(pool, manager)
    for rows in held.parts():
        caches.hold(rows)
    writer.on_members_stored = held.seen
    episodes = _episodes(settings, clock, telemetry, pool, llm, guild_settings, held)
    writer.on_messages_stored = episodes.note
    guild_settings.on_change = caches.guild  # a new timezone moves day boundaries
    writer.on_messages_changed = caches.messages  # edits/deletes make days stale
    manager.on_learned(caches.learned)  # a fact learned from chat shows at once, everywhere
    facts = _facts(settings, telemetry, pool, llm, caches)
    commands = _commands(settings, clock, telemetry, pool, llm, manager, facts, guild_settings)
    privacy = _privacy(settings, clock, telemetry, pool, manager, caches, writer, episodes, consent)
    embeddings = open_embedding_index(pool, settings, telemetry)
    recorder, budget = open_usage(settings, telemetry, pool, llm)
    retention, worker = open_background(
        settings, clock, telemetry, pool, manager, caches, embeddings, episodes, budget
    )
    # One search (and one member-name index) for the reply path and `Memory.recall`.
    names = NameIndexCache(members.all)
    recall = RecallService(pool, names, embeddings, bot_name=settings.bot_name, members=members)
    replies = open_reply_composer(
        settings, clock, telemetry, pool, llm, manager, episodes, recall, names, members, consent
    )
    caches.replies = replies  # gone words leave the windows of every process
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
        members=members,
        manager=manager,
        facts=facts,
        commands=commands,
        replies=replies,
        privacy=privacy,
        retention=retention,
        usage=usage,
        recall=recall,
        caches=caches,
        worker=worker,
        embeddings=embeddings,
        visibility=ChannelVisibility(
            pool, default_timezone=settings.default_timezone, on_change=caches.guild
        ),
        episodes=episodes,
        usage_recorder=recorder,
        token_budget=budget,
    )


def _episodes(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    llm: MemoryLLM,
    guild_settings: GuildSettingsCache,
    held: HeldMembers,
) -> EpisodeService:
    return EpisodeService(
        pool,
        llm,
        guild_settings,
        clock=clock,
        telemetry=telemetry,
        default_silence_minutes=settings.episode_silence_minutes,
        llm_summaries=settings.episode_llm_summaries,
        members=held.directory,
        forgotten=held.forgotten.in_guild,
        bot_name=settings.bot_name,
    )


def _facts(
    settings: Settings,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    llm: MemoryLLM,
    caches: CrossProcessCaches,
) -> FactService:
    """Facts whose every change (and forgotten statement) reaches every process's caches."""
    facts = FactService(
        pool,
        llm,
        FactsConfig.from_settings(settings),
        telemetry=telemetry,
        on_change=caches.member,
        fallback=MemoryLLM(OfflineProvider()),
    )
    facts.subscribe_forget(
        lambda guild_id, member, statement: caches.forgot(
            guild_id, member.user_id, statement, member.names
        )
    )
    return facts


def _commands(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    llm: MemoryLLM,
    manager: MemoryManager,
    facts: FactService,
    guild_settings: GuildSettingsCache,
) -> MemoryCommands:
    whois_budget = settings.llm_timeout_seconds

    async def memories(guild_id: int, user_id: int) -> str | None:
        # What-do-you-know was asked for: wait for a build up to one LLM timeout.
        return await manager.get_memories(guild_id, user_id, budget=whois_budget)

    return MemoryCommands(
        pool,
        facts,
        llm,
        CommandsConfig.from_settings(settings),
        telemetry=telemetry,
        clock=clock,
        memories=memories,
        guild_settings=guild_settings,
    )


def _privacy(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    manager: MemoryManager,
    caches: CrossProcessCaches,
    writer: BatchedWriter,
    episodes: EpisodeService,
    consent: MemberConsent,
) -> PrivacyDesk:
    async def resummarize(guild_id: int, day: date) -> object:
        result = await manager.summarize_day(guild_id, day, force=False)
        if result.computed:
            caches.guild(guild_id)  # other processes' contexts of the guild are stale too
        return result

    return PrivacyDesk(
        pool,
        PrivacyHooks(
            flush_writes=writer.flush,
            invalidate=caches.member,
            resummarize=resummarize,
            forget_member=episodes.forget_member,
            member_gone=caches.member_gone,
            member_back=caches.member_back,
            read_consent=consent.consent,
        ),
        default_timezone=settings.default_timezone,
        clock=clock,
        telemetry=telemetry,
    )


async def _close_services(memory: Memory) -> None:
    """Background work first (it may still use the LLM and the pool), then the caches."""
    await memory.worker.stop()
    await memory.episodes.aclose()
    await memory.embeddings.aclose()
    await memory.caches.aclose()
    await memory.retention.stop()
    await memory.privacy.aclose()
    await memory.guild_settings.aclose()
    await memory.manager.aclose()
    memory.telemetry.remove_sink(memory.usage)
    memory.telemetry.remove_sink(memory.usage_recorder)
    await memory.usage_recorder.close()
