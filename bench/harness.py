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
from memory.context import ContextConfig, MemoryManager
from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM

_log = logging.getLogger(__name__)


def bench_settings(**overrides: Any) -> Settings:
    """Defaults of a production install, not the local `.env`."""
    return Settings(_env_file=None, **overrides)


# The reply path's default memory budget (REPLY_MEMORY_BUDGET_SECONDS).
REPLY_BUDGET = 1.0


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
        ContextConfig.from_settings(bench_settings(**settings)),
        clock=clock,
        telemetry=telemetry or Telemetry(keep_recent=100),
    )


async def memories(manager: MemoryManager, guild_id: int, user_id: int) -> str | None:
    """The member's context once its build is done. `get_memories` waits only a reply's budget:
    it applies the reply budget (REPLY_MEMORY_BUDGET_SECONDS) and serves a fallback after it,
    which would time the budget instead of the build and leave builds running in background."""
    return (await manager.wait_for_context(guild_id, user_id)).text


async def timed(call: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    """(milliseconds, result) of one awaited call."""
    started = time.perf_counter()
    result = await call()
    return (time.perf_counter() - started) * 1000, result
