"""What every memory benchmark builds the same way: settings, a manager over a pool, timing.

Benchmarks run the real `MemoryManager` over a real PostgreSQL; only the model is fake
(`bench.providers.CountingProvider`). Telemetry goes to a private hub with no sinks, so the
figures on stdout stay the only output.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from bench.providers import CountingProvider
from memory.clock import Clock
from memory.llm.tasks import MemoryLLM
from memory.manager import MemoryManager
from memory.settings import Settings
from memory.telemetry import Telemetry

_log = logging.getLogger(__name__)


def bench_settings(**overrides: Any) -> Settings:
    """Defaults of a production install, not the local `.env`."""
    return Settings(_env_file=None, **overrides)  # type: ignore[call-arg]


def make_manager(
    pool: asyncpg.Pool,
    provider: CountingProvider,
    clock: Clock,
    *,
    telemetry: Telemetry | None = None,
    **settings: Any,
) -> MemoryManager:
    return MemoryManager(
        pool,
        MemoryLLM(provider),
        bench_settings(**settings),
        clock=clock,
        telemetry=telemetry or Telemetry(keep_recent=100),
    )


async def memories(manager: MemoryManager, guild_id: int, user_id: int) -> str | None:
    """The member's context once its build is done. `get_memories(budget=None)` would not wait:
    it applies the reply budget (REPLY_MEMORY_BUDGET_SECONDS) and serves a fallback after it,
    which would time the budget instead of the build and leave builds running in background."""
    return (await manager.build_context(guild_id, user_id, budget=None)).text


async def timed(call: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    """(milliseconds, result) of one awaited call."""
    started = time.perf_counter()
    result = await call()
    return (time.perf_counter() - started) * 1000, result
