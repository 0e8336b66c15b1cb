"""Resilience: a member always gets the best memory available when the LLM is down or slow, the
build goes on in the background, and forgetting sticks through every level and fallback."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import asyncpg

from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    GUILD,
    NOW,
    TODAY,
    add_forgotten,
    add_members,
    add_week,
    full,
    manager,
    message,
    model,
    set_facts,
)


def fallbacks(telemetry: Telemetry) -> list[tuple[str, str]]:
    return [(e["reason"], e["served"]) for e in telemetry.recent("fallback")]


async def test_llm_down_with_nothing_stored_serves_facts(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse in Lyon.")
    provider = model()
    provider.fail()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        assert await memory.get_memories(GUILD, ALICE, budget=1.0) == "Alice is a nurse in Lyon."
        assert (
            await memory.get_memories(GUILD, BOB, budget=1.0) is None
        )  # nothing known, nothing made up
    finally:
        await memory.aclose()
    assert fallbacks(telemetry) == [("llm_error", "facts"), ("llm_error", "none")]


async def test_only_facts_needs_no_llm_and_no_fallback(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse in Lyon.")
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        assert await memory.get_memories(GUILD, ALICE, budget=1.0) == "Alice is a nurse in Lyon."
        assert await memory.get_memories(GUILD, BOB, budget=1.0) is None
    finally:
        await memory.aclose()
    assert provider.calls == {}
    assert fallbacks(telemetry) == []


async def test_merge_failure_serves_facts_and_summaries_verbatim(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse in Lyon.")
    provider = model()
    provider.fail("merge")
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        text = await memory.get_memories(GUILD, ALICE, budget=5)
        assert text is not None
        lines = text.splitlines()
        assert lines[0] == "Facts: Alice is a nurse in Lyon."
        assert lines[1].startswith(f"Today: Alice said: Alice on {TODAY} at 9h")
        assert lines[2].startswith("Recent days: Alice over 6 days.")
        assert fallbacks(telemetry) == [("llm_error", "facts_and_summaries")]

        # Once the model is back only the merge is paid for: the summaries were kept.
        provider.heal()
        provider.calls.clear()
        merged = await memory.get_memories(GUILD, ALICE, budget=5)
    finally:
        await memory.aclose()
    assert provider.calls == {"merge": 1}
    assert merged is not None and merged.startswith("FACTS Alice is a nurse")


async def test_llm_down_serves_the_last_known_good_context(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse in Lyon.")
    provider = model()
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        good = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()

    # Later, in a new process: new chat needs a new summary, but the model is down.
    await insert_messages(db_pool, [message(ALICE, "new plans", NOW + timedelta(minutes=5))])
    clock.advance(timedelta(hours=2))
    provider.fail()
    restarted = manager(db_pool, provider, clock, telemetry)
    try:
        served = await restarted.get_memories(GUILD, ALICE, budget=1.0)
        report = await restarted.wait_for_context(GUILD, ALICE)
    finally:
        await restarted.aclose()
    assert served == good
    assert report.fallback == "last_known_good" and report.fallback_reason == "llm_error"
    assert fallbacks(telemetry)[-1] == ("llm_error", "last_known_good")


async def test_slow_llm_gets_a_fallback_and_the_build_finishes_in_background(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse in Lyon.")
    provider = model()
    provider.latency = 0.2
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        quick = await memory.get_memories(GUILD, ALICE, budget=0.05)
        assert quick == "Alice is a nurse in Lyon."
        assert fallbacks(telemetry) == [("timeout", "facts")]

        for _ in range(200):  # the build was not cancelled with the reply: it completes
            if await db_pool.fetchval("SELECT count(*) FROM merged_contexts"):
                break
            await asyncio.sleep(0.05)
        full = await memory.get_memories(GUILD, ALICE, budget=0.05)
    finally:
        await memory.aclose()
    assert provider.calls == {"daily_summary": 7, "historical_summary": 1, "merge": 1}
    assert full is not None and full.startswith("FACTS Alice is a nurse") and "TODAY" in full
    assert len(fallbacks(telemetry)) == 1


async def test_close_cancels_background_builds(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model()
    provider.latency = 30
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    before = asyncio.all_tasks()
    assert await memory.get_memories(GUILD, ALICE, budget=0.05) is None
    assert len(asyncio.all_tasks() - before) > 0
    await asyncio.wait_for(memory.aclose(), 5)
    await asyncio.sleep(0)
    assert not [t for t in asyncio.all_tasks() - before if not t.done()]


async def test_forgetting_sticks_through_summaries_and_fallbacks(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    secret = "Alice loves pineapple pizza"
    await insert_messages(db_pool, [message(ALICE, secret, NOW - timedelta(days=2))])
    await set_facts(db_pool, ALICE, "Alice is a nurse in Lyon.")
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        before = await full(memory, GUILD, ALICE)
        assert before is not None and "pineapple" in before

        await add_forgotten(db_pool, ALICE, "she loves pineapple pizza")
        memory.invalidate(GUILD, ALICE)
        provider.calls.clear()
        provider.requests.clear()
        after = await full(memory, GUILD, ALICE)
        # The stored daily summary still has it, so every later step must drop it.
        assert provider.calls == {"historical_summary": 1, "merge": 1}
        for request in provider.requests:
            assert "pineapple" not in str(request.inputs.get("days", ""))
            assert "pineapple" not in request.inputs.get("history", "")
            assert request.inputs["forgotten"] == ["she loves pineapple pizza"]
        assert after is not None and "pineapple" not in after

        # The model down: the last known good context predates the forget and is not served.
        provider.fail()
        await insert_messages(db_pool, [message(ALICE, "more", NOW + timedelta(minutes=1))])
        await add_forgotten(db_pool, ALICE, "Alice is a nurse")
        await set_facts(db_pool, ALICE, "Alice lives in Lyon.")
        memory.invalidate(GUILD, ALICE)
        degraded = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    assert degraded is not None
    assert "pineapple" not in degraded and "nurse" not in degraded
    assert degraded.startswith("Facts: Alice lives in Lyon.")
    assert fallbacks(telemetry)[-1] == ("llm_error", "facts_and_summaries")


async def test_a_forgotten_fact_does_not_come_back_through_other_members(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    gossip = NOW - timedelta(days=1, hours=1)
    await insert_messages(db_pool, [message(BOB, "Alice loves pineapple pizza. So do I.", gossip)])
    await set_facts(db_pool, BOB, "Bob plays the cello.")
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        assert "pineapple" in (await full(memory, GUILD, BOB) or "")
        await add_forgotten(db_pool, ALICE, "Alice loves pineapple pizza")
        memory.invalidate(GUILD, BOB)
        bob = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    assert bob is not None
    assert "pineapple" not in bob
    assert "So do I." in bob and "Bob plays the cello." in bob  # only that sentence went
