"""The warm path: a member's last build is served from memory for the rest of its local hour,
and never after something it was built from changed."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import asyncpg

from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.llm.providers import LLMRequest
from tests.memory.hierarchy_support import (
    ALICE,
    GUILD,
    NOW,
    add_members,
    add_week,
    full,
    manager,
    message,
    model,
    set_facts,
)


async def test_warm_hits_cost_no_lookups_until_the_hour_turns(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider, clock = model(), FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        first = await full(memory, GUILD, ALICE)
        report = await memory.wait_for_context(GUILD, ALICE)
        assert report.text == first and report.cache_hits == {"warm": 1}

        await insert_messages(db_pool, [message(ALICE, "Alice got a new bike", NOW)])
        assert await memory.get_memories(GUILD, ALICE, budget=1.0) == first, (
            "same hour: today is as it was"
        )

        clock.advance(timedelta(hours=1))
        later = await full(memory, GUILD, ALICE)
        assert later is not None and "Alice got a new bike" in later
    finally:
        await memory.aclose()


async def test_a_fact_change_is_seen_at_once(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    memory = manager(db_pool, model(), FixedClock(NOW), telemetry)
    try:
        await full(memory, GUILD, ALICE)
        await set_facts(db_pool, ALICE, "Alice is a pilot.")
        memory.invalidate(GUILD, ALICE)  # what FactService's change listener does
        text = await full(memory, GUILD, ALICE)
        assert text is not None and "Alice is a pilot." in text
    finally:
        await memory.aclose()


async def test_a_build_overtaken_by_a_change_is_not_kept_warm(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse.")  # facts and history: a merge is due
    gate, merging = asyncio.Event(), asyncio.Event()

    async def slow_merge(request: LLMRequest) -> str:
        merging.set()
        await gate.wait()
        inputs = request.inputs
        return f"FACTS {inputs['facts']} TODAY {inputs['today']}"

    memory = manager(db_pool, model(merge=slow_merge), FixedClock(NOW), telemetry)
    try:
        building = asyncio.ensure_future(full(memory, GUILD, ALICE))
        await asyncio.wait_for(merging.wait(), 10)  # the build is in its merge, with old facts
        await set_facts(db_pool, ALICE, "Alice is a pilot.")
        memory.invalidate(GUILD, ALICE)
        gate.set()
        await building
        text = await full(memory, GUILD, ALICE)
        assert text is not None and "Alice is a pilot." in text
    finally:
        await memory.aclose()


async def test_the_stored_context_follows_what_is_served_from_the_lru(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider, clock = model(), FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await set_facts(db_pool, ALICE, "Alice is a pilot.")
        first = await full(memory, GUILD, ALICE)
        await set_facts(db_pool, ALICE, "Alice is a sailor.")
        memory.messages_changed()  # drop the warm entry only; the context LRU keeps both states
        await full(memory, GUILD, ALICE)
        await set_facts(db_pool, ALICE, "Alice is a pilot.")
        memory.messages_changed()
        merges = provider.calls["merge"]
        assert await full(memory, GUILD, ALICE) == first
        assert provider.calls["merge"] == merges, "served from the LRU, no merge"
    finally:
        await memory.aclose()
    stored = await db_pool.fetchval(
        "SELECT context FROM merged_contexts WHERE guild_id = $1 AND user_id = $2", GUILD, ALICE
    )
    # The last-known-good row is the merge served last; today's notes are attached on serving.
    assert first is not None and stored == first.split("\nToday: ")[0]
    restarted = manager(db_pool, provider, clock, telemetry)
    try:
        merges = provider.calls["merge"]
        assert await full(restarted, GUILD, ALICE) == first
        assert provider.calls["merge"] == merges, "a restart merges nothing"
    finally:
        await restarted.aclose()


async def test_after_the_hour_a_reply_gets_the_last_context_while_the_rebuild_runs(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider, clock = model(), FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        first = await full(memory, GUILD, ALICE)
        await insert_messages(db_pool, [message(ALICE, "Alice got a new bike", NOW)])
        clock.advance(timedelta(hours=1))
        # The rebuild reads today's new message with the model, which is stuck.
        gate, reading = asyncio.Event(), asyncio.Event()
        summarise = provider.script["daily_summary"]

        async def stuck(request: LLMRequest) -> Any:
            reading.set()
            await gate.wait()
            return summarise(request)

        provider.script["daily_summary"] = stuck
        # A reply with all the time in the world still gets the last context at once.
        served = await asyncio.wait_for(memory.get_memories(GUILD, ALICE, budget=3600), 10)
        assert served == first
        await asyncio.wait_for(reading.wait(), 10)  # the rebuild runs behind the reply
        gate.set()
        later = await full(memory, GUILD, ALICE)
        assert later is not None and "Alice got a new bike" in later
    finally:
        await memory.aclose()


async def test_an_invalidated_context_is_never_served_as_the_last_one(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    clock = FixedClock(NOW)
    memory = manager(db_pool, model(), clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        await set_facts(db_pool, ALICE, "Alice is a pilot.")
        memory.invalidate(GUILD, ALICE)  # a fact changed (or a forget, a purge, an opt-out)
        clock.advance(timedelta(hours=1))
        served = await memory.get_memories(GUILD, ALICE, budget=3600)
        assert served is not None and "Alice is a pilot." in served
    finally:
        await memory.aclose()
