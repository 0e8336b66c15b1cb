"""Every service built, once, in the order they depend on each other: the composition root.

`build_memory` reads top to bottom as the house is wired: guild settings and the member
directory first, then contexts and the caches that invalidate them across processes, then
episodes, facts, commands, privacy, background work, recall and the reply path; last the six
faces a front end sees (`memory.ports`). Every collaborator is a named service or one of its
bound methods; the only closures left are the two adapters at the bottom of this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import asyncpg

from memory.commands import CommandsConfig, MemoryCommands
from memory.context import ContextConfig, MemoryManager
from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.episodes import EpisodeService
from memory.facts import FactsConfig, FactService
from memory.guilds import ChannelVisibility, GuildDefaults, GuildSettingsCache
from memory.ingest import BatchedWriter
from memory.jobs import JobWorker
from memory.llm import MemoryLLM, OfflineProvider
from memory.members import HeldMembers, MemberConsent, NameIndexCache
from memory.ports import (
    Administration,
    ChatEvents,
    Conversation,
    ImportSettings,
    MemberCommands,
    Operations,
    Reports,
)
from memory.privacy import PrivacyDesk, PrivacyHooks, RetentionJob
from memory.recall import RecallService, open_embedding_index
from memory.telemetry import UsageRollup
from memory.usage import DailyTokenBudget, UsageRecorder
from memory.wiring._background import open_background, open_usage
from memory.wiring._caches import CrossProcessCaches
from memory.wiring._memory import Memory
from memory.wiring._replies import open_reply_composer


@dataclass(frozen=True, slots=True)
class Opened:
    """What `open_memory` opened before any service; every builder below starts from it."""

    settings: Settings
    clock: Clock
    telemetry: Telemetry
    pool: asyncpg.Pool
    llm: MemoryLLM
    writer: BatchedWriter


def writer_for(pool: asyncpg.Pool, settings: Settings, telemetry: Telemetry) -> BatchedWriter:
    return BatchedWriter(
        pool,
        batch_size=settings.ingest_batch_size,
        flush_seconds=settings.ingest_flush_seconds,
        queue_max=settings.ingest_queue_max,
        default_timezone=settings.default_timezone,
        telemetry=telemetry,
    )


def build_memory(opened: Opened) -> Memory:
    settings, telemetry, pool, llm = opened.settings, opened.telemetry, opened.pool, opened.llm
    guild_settings = GuildSettingsCache(pool, GuildDefaults.from_settings(settings))
    # One member directory for the reply path, recall and episodes, its rows kept a minute, and
    # members' consent and forgotten statements kept as long; every member change drops them
    # in every process, and a rename the writer stores at once in this one.
    held = HeldMembers.open(pool, telemetry=telemetry)
    manager = MemoryManager(
        pool,
        llm,
        ContextConfig.from_settings(settings),
        clock=opened.clock,
        telemetry=telemetry,
        reads=held.reads(),
    )
    caches = _caches(opened, manager, held, guild_settings)
    episodes = _episodes(opened, guild_settings, held)
    opened.writer.on_messages_stored = episodes.note
    facts = _facts(opened, caches)
    commands = _commands(opened, manager, facts, guild_settings)
    privacy = _privacy(opened, manager, caches, episodes, held.consent)
    embeddings = open_embedding_index(pool, settings, telemetry)
    recorder, budget = open_usage(settings, telemetry, pool, llm)
    retention, worker = open_background(
        settings, opened.clock, telemetry, pool, manager, caches, embeddings, episodes, budget
    )
    # One search (and one member-name index) for the reply path and the member commands.
    members = held.directory
    names = NameIndexCache(members.all)
    recall = RecallService(pool, names, embeddings, bot_name=settings.bot_name, members=members)
    replies = open_reply_composer(
        settings,
        opened.clock,
        telemetry,
        pool,
        llm,
        manager,
        episodes,
        recall,
        names,
        members,
        held.consent,
    )
    caches.replies = replies  # gone words leave the windows of every process
    visibility = ChannelVisibility(
        pool, default_timezone=settings.default_timezone, on_change=caches.guild
    )
    usage = _usage_rollup(telemetry)
    return Memory(
        settings=settings,
        clock=opened.clock,
        telemetry=telemetry,
        pool=pool,
        llm=llm,
        writer=opened.writer,
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
        visibility=visibility,
        episodes=episodes,
        usage_recorder=recorder,
        token_budget=budget,
        chat=ChatEvents(opened.writer, guild_settings, visibility),
        conversation=Conversation(replies, guild_settings, held.consent),
        member_commands=MemberCommands(commands, facts, manager, recall, members),
        admin=Administration(privacy, guild_settings, visibility),
        reports=Reports(episodes, manager),
        operations=_operations(opened, worker, retention, usage, recorder, budget),
    )


def _caches(
    opened: Opened,
    manager: MemoryManager,
    held: HeldMembers,
    guild_settings: GuildSettingsCache,
) -> CrossProcessCaches:
    """Invalidations across processes, and the hooks that feed them in this one."""
    caches = CrossProcessCaches(opened.pool, manager)
    for rows in held.parts():
        caches.hold(rows)
    opened.writer.on_members_stored = held.seen
    guild_settings.on_change = caches.guild  # a new timezone moves day boundaries
    opened.writer.on_messages_changed = caches.messages  # edits/deletes make days stale
    manager.on_learned(caches.learned)  # a fact learned from chat shows at once, everywhere
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


def _facts(opened: Opened, caches: CrossProcessCaches) -> FactService:
    """Facts whose every change (and forgotten statement) reaches every process's caches."""
    facts = FactService(
        opened.pool,
        opened.llm,
        FactsConfig.from_settings(opened.settings),
        telemetry=opened.telemetry,
        on_change=caches.member,
        fallback=MemoryLLM(OfflineProvider()),
    )
    facts.subscribe_forget(caches.forgot_about)
    return facts


def _commands(
    opened: Opened,
    manager: MemoryManager,
    facts: FactService,
    guild_settings: GuildSettingsCache,
) -> MemoryCommands:
    return MemoryCommands(
        opened.pool,
        facts,
        opened.llm,
        CommandsConfig.from_settings(opened.settings),
        telemetry=opened.telemetry,
        clock=opened.clock,
        memories=AskedMemories(manager, budget=opened.settings.llm_timeout_seconds),
        guild_settings=guild_settings,
    )


def _privacy(
    opened: Opened,
    manager: MemoryManager,
    caches: CrossProcessCaches,
    episodes: EpisodeService,
    consent: MemberConsent,
) -> PrivacyDesk:
    return PrivacyDesk(
        opened.pool,
        PrivacyHooks(
            flush_writes=opened.writer.flush,
            invalidate=caches.member,
            resummarize=SharedResummary(manager, caches),
            forget_member=episodes.forget_member,
            member_gone=caches.member_gone,
            member_back=caches.member_back,
            read_consent=consent.consent,
        ),
        default_timezone=opened.settings.default_timezone,
        clock=opened.clock,
        telemetry=opened.telemetry,
    )


def _operations(
    opened: Opened,
    worker: JobWorker,
    retention: RetentionJob,
    usage: UsageRollup,
    recorder: UsageRecorder,
    budget: DailyTokenBudget,
) -> Operations:
    return Operations(
        pool=opened.pool,
        telemetry=opened.telemetry,
        llm=opened.llm,
        writer=opened.writer,
        worker=worker,
        retention=retention,
        usage=usage,
        usage_recorder=recorder,
        token_budget=budget,
        shards=opened.settings.shards,
        imports=ImportSettings(
            max_message_chars=opened.settings.max_message_chars,
            default_timezone=opened.settings.default_timezone,
        ),
    )


@dataclass(frozen=True, slots=True)
class AskedMemories:
    """What-do-you-know was asked for: wait for a member's build up to one LLM timeout."""

    manager: MemoryManager
    budget: float

    async def __call__(self, guild_id: int, user_id: int) -> str | None:
        return await self.manager.get_memories(guild_id, user_id, budget=self.budget)


@dataclass(frozen=True, slots=True)
class SharedResummary:
    """A day re-summarized after a purge; other processes' contexts of the guild go stale."""

    manager: MemoryManager
    caches: CrossProcessCaches

    async def __call__(self, guild_id: int, day: date) -> object:
        result = await self.manager.summarize_day(guild_id, day, force=False)
        if result.computed:
            self.caches.guild(guild_id)
        return result
