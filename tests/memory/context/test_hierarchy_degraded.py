"""A day the fallback provider summarised (the primary was down) is kept but redone by the
primary later, instead of being stored as final forever."""

from __future__ import annotations

from datetime import timedelta

import asyncpg

from memory.context import ContextConfig, MemoryManager
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from memory.llm.providers import ProviderChain, RetryPolicy
from tests.fakes import ScriptedProvider
from tests.memory.hierarchy_support import (
    ALICE,
    GUILD,
    NOW,
    TODAY,
    add_members,
    add_week,
    days_requested,
    model,
    settings,
)


async def _no_sleep(_: float) -> None:
    return None


def _manager(
    db_pool: asyncpg.Pool, primary: ScriptedProvider, telemetry: Telemetry
) -> MemoryManager:
    primary.name = "primary"
    chain = ProviderChain(
        [primary, OfflineProvider()],
        policy=RetryPolicy(max_retries=0),
        telemetry=telemetry,
        sleep=_no_sleep,
    )
    return MemoryManager(
        db_pool,
        MemoryLLM(chain),
        ContextConfig.from_settings(settings()),
        clock=FixedClock(NOW),
        telemetry=telemetry,
    )


async def test_fallback_day_is_kept_then_redone_by_the_primary(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    yesterday = TODAY - timedelta(days=1)
    primary = model()
    primary.fail("daily_summary")
    manager = _manager(db_pool, primary, telemetry)

    await manager.summarize_day(GUILD, yesterday, force=False)
    row = await db_pool.fetchrow(
        "SELECT provider, retry_after IS NOT NULL AS degraded FROM summary_days"
        " WHERE guild_id = $1 AND day = $2",
        GUILD,
        yesterday,
    )
    assert row is not None and row["provider"] == "offline" and row["degraded"]
    stored = await db_pool.fetchval(
        "SELECT summary FROM daily_summaries WHERE guild_id = $1 AND day = $2 AND user_id = $3",
        GUILD,
        yesterday,
        ALICE,
    )
    assert stored, "the fallback's summary is served meanwhile"

    primary.heal()
    await manager.summarize_day(GUILD, yesterday, force=False)
    assert days_requested(primary).count(yesterday.isoformat()) == 1, "not retried before due"

    await db_pool.execute("UPDATE summary_days SET retry_after = now() - interval '1 second'")
    result = await manager.summarize_day(GUILD, yesterday, force=False)
    assert result.computed and result.reason == "degraded"
    row = await db_pool.fetchrow(
        "SELECT provider, retry_after FROM summary_days WHERE guild_id = $1 AND day = $2",
        GUILD,
        yesterday,
    )
    assert row is not None and row["provider"] == "primary" and row["retry_after"] is None
    await manager.aclose()
