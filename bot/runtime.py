"""The composition root: builds every service once from the settings and tears them down.

Entry points (the Discord bot, the console, CLI commands) all open a `Runtime` so they share
one wiring. Services are plain objects from `memory/` and `db/`; nothing here talks to Discord.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta

import asyncpg

from db.lifecycle import open_database
from db.members import get_members, list_members
from memory.clock import Clock, SystemClock
from memory.commands import MemoryCommands
from memory.facts import FactService
from memory.guild_settings import GuildSettingsCache
from memory.ingest import BatchedWriter
from memory.llm.factory import build_llm
from memory.llm.tasks import MemoryLLM
from memory.manager import MemoryManager
from memory.names import NameIndexCache
from memory.reply import ReplyComposer, ReplyConfig
from memory.settings import Settings
from memory.telemetry import Telemetry, configure_telemetry, get_telemetry
from memory.window import ConversationWindows, Turn

_log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """Everything a front end needs, built once per process."""

    settings: Settings
    clock: Clock
    telemetry: Telemetry
    pool: asyncpg.Pool
    # Batched chat-event writer; started by open_runtime, flushed and closed on exit.
    writer: BatchedWriter | None = None
    # The LLM tasks over the configured provider chain: one per process, so rate limits hold.
    llm: MemoryLLM | None = None
    # Member memory (facts + today + days 2-7, merged); background builds cancelled on exit.
    manager: MemoryManager | None = None
    # Factual memory (remember/forget/undo) and the memory commands that drive it.
    facts: FactService | None = None
    commands: MemoryCommands | None = None
    # Per-guild settings (timezone, ignored channels, forget policy), cached for hot paths.
    guild_settings: GuildSettingsCache = field(init=False)
    # Replies: the composer (memories + conversation window + one LLM call) for bot and console.
    replies: ReplyComposer | None = None

    def __post_init__(self) -> None:
        self.guild_settings = GuildSettingsCache(self.pool, self.settings)


def database_url(settings: Settings) -> str | None:
    return settings.database_url.get_secret_value() if settings.database_url else None


@asynccontextmanager
async def open_runtime(
    settings: Settings,
    *,
    clock: Clock | None = None,
    telemetry: Telemetry | None = None,
    pool: asyncpg.Pool | None = None,
    telemetry_stdout: bool | None = None,
    llm: MemoryLLM | None = None,
) -> AsyncIterator[Runtime]:
    """Open the database (embedded when DATABASE_URL is unset) and wire the services.

    Tests pass their own `pool` and `telemetry`; then nothing global is configured. A given
    `llm` is used instead of the configured provider chain (and not closed here).
    """
    if telemetry is None:
        stdout = settings.telemetry_stdout if telemetry_stdout is None else telemetry_stdout
        telemetry = configure_telemetry(
            log_dir=settings.log_dir,
            stdout=stdout,
            max_bytes=settings.telemetry_file_max_bytes,
            backups=settings.telemetry_file_backups,
        )
    if pool is not None:
        runtime = Runtime(settings, clock or SystemClock(), telemetry or get_telemetry(), pool)
        runtime.llm = llm
        async with _ingest_writer(runtime), _memory(runtime):
            yield runtime
        return
    async with open_database(
        database_url(settings),
        settings.data_dir,
        min_size=settings.db_pool_min,
        max_size=settings.db_pool_max,
    ) as opened:
        runtime = Runtime(settings, clock or SystemClock(), telemetry, opened)
        runtime.llm = llm
        async with _ingest_writer(runtime), _memory(runtime):
            yield runtime


@asynccontextmanager
async def _ingest_writer(runtime: Runtime) -> AsyncIterator[BatchedWriter]:
    """Run the batched writer for the runtime's lifetime; pending writes flush before the pool
    closes."""
    settings = runtime.settings
    writer = BatchedWriter(
        runtime.pool,
        batch_size=settings.ingest_batch_size,
        flush_seconds=settings.ingest_flush_seconds,
        queue_max=settings.ingest_queue_max,
        default_timezone=settings.default_timezone,
        telemetry=runtime.telemetry,
    )
    writer.start()
    runtime.writer = writer
    try:
        yield writer
    finally:
        await writer.close()


@asynccontextmanager
async def _memory(runtime: Runtime) -> AsyncIterator[MemoryManager]:
    """The LLM chain and the memory manager for the runtime's lifetime; on exit background
    builds are cancelled before the provider clients and the pool close."""
    llm = runtime.llm or build_llm(runtime.settings, runtime.telemetry)
    owns_llm = runtime.llm is None
    runtime.llm = llm
    manager = MemoryManager(
        runtime.pool, llm, runtime.settings, clock=runtime.clock, telemetry=runtime.telemetry
    )
    runtime.manager = manager
    if runtime.writer is not None:  # edits/deletes may make past days stale
        runtime.writer.on_messages_changed = manager.messages_changed
    runtime.facts, runtime.commands = _fact_services(runtime, llm, manager)
    runtime.replies = _reply_composer(runtime, llm, manager)
    try:
        yield manager
    finally:
        await runtime.guild_settings.aclose()
        await manager.aclose()
        if owns_llm:
            await llm.provider.aclose()


def _fact_services(
    runtime: Runtime, llm: MemoryLLM, manager: MemoryManager
) -> tuple[FactService, MemoryCommands]:
    """Facts invalidate the member's cached context on every change; what-do-you-know answers
    from the full context, waiting for a build up to one LLM timeout (it was asked for)."""
    settings = runtime.settings
    facts = FactService(
        runtime.pool, llm, settings, telemetry=runtime.telemetry, on_change=manager.invalidate
    )

    async def memories(guild_id: int, user_id: int) -> str | None:
        return await manager.get_memories(guild_id, user_id, budget=settings.llm_timeout_seconds)

    commands = MemoryCommands(
        runtime.pool,
        facts,
        llm,
        settings,
        telemetry=runtime.telemetry,
        clock=runtime.clock,
        memories=memories,
        guild_settings=runtime.guild_settings,
    )
    return facts, commands


def _reply_composer(runtime: Runtime, llm: MemoryLLM, manager: MemoryManager) -> ReplyComposer:
    """The reply path: per-channel windows folded by the LLM, memories within the budget."""
    settings, pool = runtime.settings, runtime.pool

    async def fold(summary: str, turns: list[Turn]) -> str:
        return await llm.fold_window(
            summary=summary,
            turns=[turn.as_prompt_message() for turn in turns],
            # The window keeps its summary within a third of its token budget (~4 chars/token).
            max_chars=settings.window_token_budget * 4 // 3,
            guild_id=None,
        )

    windows = ConversationWindows(
        fold,
        runtime.clock,
        token_budget=settings.window_token_budget,
        soft_decay=timedelta(minutes=settings.window_soft_decay_minutes),
        hard_decay=timedelta(minutes=settings.window_hard_decay_minutes),
        telemetry=runtime.telemetry,
    )
    return ReplyComposer(
        memory=manager,
        llm=llm,
        windows=windows,
        names=NameIndexCache(lambda guild_id: list_members(pool, guild_id)),
        load_members=lambda guild_id, ids: get_members(pool, guild_id, ids),
        config=ReplyConfig(
            bot_name=settings.bot_name,
            persona=settings.persona,
            prompt_token_budget=settings.reply_prompt_token_budget,
            window_token_budget=settings.window_token_budget,
            memory_budget_seconds=settings.reply_memory_budget_seconds,
            max_members=settings.reply_max_members,
            context_max_chars=settings.context_max_chars,
        ),
        telemetry=runtime.telemetry,
    )
