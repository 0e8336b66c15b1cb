"""A burst of cold members: at most `max_parallel_builds` contexts are built at once; the others
wait their turn while their replies get the fallback within the budget."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import asyncpg

from memory.context import MemoryManager
from memory.core.clock import FixedClock
from memory.core.report import ContextReport
from memory.core.telemetry import Telemetry
from memory.llm.providers import LLMRequest
from memory.llm.tasks import DailySummaries, TextOutput
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    GUILD,
    NOW,
    add_members,
    add_week,
    full,
    history,
    manager,
    model,
)
from tests.support import eventually


@dataclass
class HeldBuild:
    """Alice's build holding the only build slot until `release` is set."""

    memory: MemoryManager
    provider: Any
    release: asyncio.Event
    alice: asyncio.Future[ContextReport]


async def alice_holds_the_slot(db_pool: asyncpg.Pool, telemetry: Telemetry) -> HeldBuild:
    await add_members(db_pool)
    await add_week(db_pool)
    release = asyncio.Event()

    async def held_history(request: LLMRequest) -> TextOutput | DailySummaries:
        await release.wait()
        return history(request)

    provider = model(historical_summary=held_history)
    # DB_POOL_MAX=3: one build at a time.
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry, db_pool_max=3)
    alice = asyncio.ensure_future(memory.wait_for_context(GUILD, ALICE))
    await eventually(lambda: provider.calls["historical_summary"] == 1)
    return HeldBuild(memory, provider, release, alice)


async def test_a_build_past_the_limit_waits_and_its_reply_gets_the_fallback(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    held = await alice_holds_the_slot(db_pool, telemetry)
    memory, provider = held.memory, held.provider
    calls = sum(provider.calls.values())

    report = await memory.build_context(GUILD, BOB, budget=0.05)
    assert telemetry.recent("fallback")[-1]["reason"] == "timeout"
    assert report.text, "Bob's reply gets the stored summaries while his build waits"
    assert sum(provider.calls.values()) == calls, "Bob's build has not started beside Alice's"

    held.release.set()
    assert (await held.alice).text
    assert "Bob" in (await full(memory, GUILD, BOB) or "")
    await memory.aclose()


async def test_in_a_burst_a_queued_build_is_not_waited_for(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """Without `wait_in_queue` (a reply in a burst), a member whose build would wait for a
    free slot gets the fallback at once instead of after the whole budget."""
    held = await alice_holds_the_slot(db_pool, telemetry)
    memory = held.memory

    waited = asyncio.ensure_future(memory.get_memories(GUILD, BOB, budget=30))
    text = await asyncio.wait_for(
        memory.get_memories(GUILD, BOB, budget=30, wait_in_queue=False), 10
    )
    assert text, "the stored summaries, without waiting out the 30 s budget"
    assert telemetry.recent("fallback")[-1]["reason"] == "queued"
    assert not waited.done(), "a patient request still waits for the build"

    held.release.set()
    assert (await held.alice).text
    assert "Bob" in (await waited or "")
    await memory.aclose()
