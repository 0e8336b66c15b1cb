"""`open_memory(settings)`: opens everything once and closes it in order.

Every front end (the Discord client, the console, each CLI command) opens memory through this
function, so they share one wiring: database (embedded when DATABASE_URL is unset), migrations,
pool, LLM chain, the batched writer, every service (`_services.build_memory`), and the
background jobs of the bot. On exit things close in dependency order: background work is
cancelled, the writer drains before the pool closes, and the pool closes before the embedded
server stops.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import asyncpg

from memory.core.clock import Clock
from memory.core.events import EventBus
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.database import open_configured_database
from memory.llm import MemoryLLM, build_llm
from memory.telemetry import attach_sinks
from memory.wiring._memory import Memory
from memory.wiring._services import Opened, build_memory, writer_for

_log = logging.getLogger(__name__)


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
        events = EventBus()  # who hears what: memory/wiring/_listeners.py
        writer = writer_for(pool, settings, telemetry, events)
        writer.start()
        stack.push_async_callback(writer.close)  # drained before the pool closes
        if llm is None:
            llm = build_llm(settings, telemetry, pool=pool)
            stack.push_async_callback(llm.provider.aclose)
        memory = build_memory(Opened(settings, clock, telemetry, pool, llm, writer, events))
        stack.push_async_callback(_close_services, memory)
        memory.caches.listener.start()
        memory.usage_recorder.start()
        if background and settings.run_worker:
            memory.worker.start()
        yield memory


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
