"""Every service built, once, in the order they depend on each other: the composition root.

`build_memory` reads top to bottom as the house is wired: guild settings and the member
directory first, then contexts and the caches that invalidate them across processes, then
episodes, facts, commands, privacy, background work, recall and the reply path; last the six
faces a front end sees (`memory.ports`). Every collaborator is a named service or one of its
bound methods, or one of the small named objects of `_collaborators.py`; no closures.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from memory.commands import CommandOperations, CommandsConfig, MemoryCommands
from memory.context import ContextConfig, MemoryManager
from memory.core.clock import Clock
from memory.core.events import EventBus
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.episodes import EpisodeService
from memory.facts import FactsConfig, FactService
from memory.guilds import ChannelVisibility, GuildDefaults, GuildSettingsCache
from memory.ingest import BatchedWriter, StoredMessages
from memory.jobs import JobWorker
from memory.llm import MemoryLLM, OfflineProvider
from memory.members import HeldMembers, MemberConsent, NameIndexCache
from memory.ports import (
    Conversation,
    Imports,
    ImportSettings,
    Operations,
)
from memory.privacy import PrivacyDesk, RetentionJob
from memory.recall import EmbeddingIndex, RecallService, open_embedding_index
from memory.replies import ReplyComposer
from memory.telemetry import UsageRollup
from memory.usage import DailyTokenBudget, UsageRecorder
from memory.wiring._background import open_background, open_usage
from memory.wiring._caches import CrossProcessCaches
from memory.wiring._collaborators import AskedMemories, SharedResummary
from memory.wiring._listeners import listen
from memory.wiring._memory import Memory
from memory.wiring._reply_path import open_reply_composer


@dataclass(frozen=True, slots=True)
class Opened:
    """What `open_memory` opened before any service; every builder below starts from it."""

    settings: Settings
    clock: Clock
    telemetry: Telemetry
    pool: asyncpg.Pool
    llm: MemoryLLM
    writer: BatchedWriter
    events: EventBus


def writer_for(
    pool: asyncpg.Pool, settings: Settings, telemetry: Telemetry, events: EventBus
) -> BatchedWriter:
    return BatchedWriter(
        pool,
        batch_size=settings.ingest_batch_size,
        flush_seconds=settings.ingest_flush_seconds,
        queue_max=settings.ingest_queue_max,
        default_timezone=settings.default_timezone,
        telemetry=telemetry,
        events=events,
    )


@dataclass(frozen=True, slots=True)
class _Core:
    """Contexts and the services that change what they are built from."""

    guild_settings: GuildSettingsCache
    held: HeldMembers
    manager: MemoryManager
    caches: CrossProcessCaches
    episodes: EpisodeService
    facts: FactService
    commands: MemoryCommands
    privacy: PrivacyDesk


@dataclass(frozen=True, slots=True)
class _Background:
    """Work that runs beside the chat: embeddings, usage, retention, the job worker."""

    embeddings: EmbeddingIndex
    recorder: UsageRecorder
    budget: DailyTokenBudget
    retention: RetentionJob
    worker: JobWorker


def build_memory(opened: Opened) -> Memory:
    """Every service in the order they depend on each other, then the faces over them."""
    core = _core(opened)
    background = _background(opened, core)
    settings, members = opened.settings, core.held.directory
    # One search (and one member-name index) for the reply path and the member commands.
    names = NameIndexCache(members.all)
    recall = RecallService(
        opened.pool,
        names,
        background.embeddings,
        bot_name=settings.bot_name,
        members=members,
        clock=opened.clock,
    )
    replies = open_reply_composer(
        settings,
        opened.clock,
        opened.telemetry,
        opened.pool,
        opened.llm,
        core.manager,
        core.episodes,
        recall,
        names,
        members,
        core.held.consent,
    )
    core.caches.replies = replies  # gone words leave the windows of every process
    listen(opened.events, core.caches, core.held, core.episodes, background.embeddings)
    return _assembled(opened, core, background, recall, replies)


def _core(opened: Opened) -> _Core:
    settings, pool, llm = opened.settings, opened.pool, opened.llm
    guild_settings = GuildSettingsCache(
        pool, GuildDefaults.from_settings(settings), events=opened.events
    )
    # One member directory for the reply path, recall and episodes, its rows kept a minute, and
    # members' consent and forgotten statements kept as long; every member change drops them
    # in every process, and a rename the writer stores at once in this one.
    held = HeldMembers.open(pool, telemetry=opened.telemetry)
    manager = MemoryManager(
        pool,
        llm,
        ContextConfig.from_settings(settings),
        clock=opened.clock,
        telemetry=opened.telemetry,
        reads=held.reads(),
        events=opened.events,
    )
    caches = _caches(opened, manager, held)
    episodes = _episodes(opened, guild_settings, held)
    facts = _facts(opened)
    return _Core(
        guild_settings=guild_settings,
        held=held,
        manager=manager,
        caches=caches,
        episodes=episodes,
        facts=facts,
        commands=_commands(opened, manager, facts, guild_settings),
        privacy=_privacy(opened, manager, caches, held.consent),
    )


def _background(opened: Opened, core: _Core) -> _Background:
    settings, telemetry, pool = opened.settings, opened.telemetry, opened.pool
    embeddings = open_embedding_index(pool, settings, telemetry)
    recorder, budget = open_usage(settings, telemetry, pool, opened.llm)
    retention, worker = open_background(
        settings,
        opened.clock,
        telemetry,
        pool,
        core.manager,
        core.caches,
        embeddings,
        core.episodes,
        budget,
    )
    return _Background(embeddings, recorder, budget, retention, worker)


def _assembled(
    opened: Opened,
    core: _Core,
    background: _Background,
    recall: RecallService,
    replies: ReplyComposer,
) -> Memory:
    visibility = ChannelVisibility(
        opened.pool, default_timezone=opened.settings.default_timezone, events=opened.events
    )
    usage = _usage_rollup(opened.telemetry)
    members, consent = core.held.directory, core.held.consent
    return Memory(
        settings=opened.settings,
        clock=opened.clock,
        telemetry=opened.telemetry,
        pool=opened.pool,
        llm=opened.llm,
        writer=opened.writer,
        guild_settings=core.guild_settings,
        members=members,
        manager=core.manager,
        facts=core.facts,
        commands=core.commands,
        replies=replies,
        privacy=core.privacy,
        retention=background.retention,
        usage=usage,
        recall=recall,
        caches=core.caches,
        worker=background.worker,
        embeddings=background.embeddings,
        visibility=visibility,
        episodes=core.episodes,
        usage_recorder=background.recorder,
        token_budget=background.budget,
        stored=StoredMessages(opened.writer, opened.pool),
        conversation=Conversation(
            replies, core.guild_settings, consent, core.commands, core.episodes, opened.telemetry
        ),
        operations=_operations(opened, background, usage),
        imports=_imports(opened, core, background.embeddings),
    )


def _caches(opened: Opened, manager: MemoryManager, held: HeldMembers) -> CrossProcessCaches:
    """Invalidations across processes (what feeds them in this one: `_listeners.listen`)."""
    caches = CrossProcessCaches(opened.pool, manager)
    for rows in held.parts():
        caches.hold(rows)
    return caches


def _usage_rollup(telemetry: Telemetry) -> UsageRollup:
    """Today's LLM and cache usage, counted from telemetry as it happens."""
    usage = UsageRollup()
    usage.seed(telemetry.recent())
    telemetry.add_sink(usage)
    return usage


def _episodes(
    opened: Opened, guild_settings: GuildSettingsCache, held: HeldMembers
) -> EpisodeService:
    return EpisodeService(
        opened.pool,
        opened.llm,
        guild_settings,
        clock=opened.clock,
        telemetry=opened.telemetry,
        default_silence_minutes=opened.settings.episode_silence_minutes,
        llm_summaries=opened.settings.episode_llm_summaries,
        members=held.directory,
        forgotten=held.forgotten.in_guild,
        bot_name=opened.settings.bot_name,
    )


def _facts(opened: Opened) -> FactService:
    """Facts whose every change (and forgotten statement) is told on the bus."""
    return FactService(
        opened.pool,
        opened.llm,
        FactsConfig.from_settings(opened.settings),
        telemetry=opened.telemetry,
        events=opened.events,
        fallback=MemoryLLM(OfflineProvider()),
    )


def _commands(
    opened: Opened,
    manager: MemoryManager,
    facts: FactService,
    guild_settings: GuildSettingsCache,
) -> MemoryCommands:
    config = CommandsConfig.from_settings(opened.settings)
    operations = CommandOperations(
        opened.pool,
        facts,
        opened.llm,
        config,
        telemetry=opened.telemetry,
        memories=AskedMemories(manager, budget=opened.settings.llm_timeout_seconds),
        guild_settings=guild_settings,
    )
    return MemoryCommands(
        operations, opened.llm, config, telemetry=opened.telemetry, clock=opened.clock
    )


def _privacy(
    opened: Opened,
    manager: MemoryManager,
    caches: CrossProcessCaches,
    consent: MemberConsent,
) -> PrivacyDesk:
    return PrivacyDesk(
        opened.pool,
        flush_writes=opened.writer.flush,
        resummarize=SharedResummary(manager, caches),
        events=opened.events,
        read_consent=consent.consent,
        default_timezone=opened.settings.default_timezone,
        clock=opened.clock,
        telemetry=opened.telemetry,
    )


def _operations(opened: Opened, background: _Background, usage: UsageRollup) -> Operations:
    return Operations(
        pool=opened.pool,
        telemetry=opened.telemetry,
        llm=opened.llm,
        writer=opened.writer,
        usage=usage,
        usage_recorder=background.recorder,
        shards=opened.settings.shards,
    )


def _imports(opened: Opened, core: _Core, embeddings: EmbeddingIndex) -> Imports:
    return Imports(
        pool=opened.pool,
        telemetry=opened.telemetry,
        settings=ImportSettings(
            max_message_chars=opened.settings.max_message_chars,
            default_timezone=opened.settings.default_timezone,
        ),
        episodes=core.episodes,
        contexts=core.manager,
        embeddings=embeddings,
        clock=opened.clock,
    )
