"""The hierarchy's cost model on a real PostgreSQL: a week of chat costs one daily call per
guild-day, one history and one merge per member, and nothing more - not on the next request,
not for 100 concurrent ones, not after a restart."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import asyncpg

from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    NOW,
    TODAY,
    add_members,
    add_week,
    days_requested,
    full,
    manager,
    model,
    set_facts,
)

MEMBERS = (ALICE, BOB, CAROL)


async def test_a_week_costs_one_call_per_guild_day_and_per_member(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse in Lyon.")
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        texts = {uid: await full(memory, GUILD, uid) for uid in MEMBERS}
    finally:
        await memory.aclose()

    # Each day read once (one pass per day); the histories of the members asked about so far in
    # one batched call when the last day closed, then one each for members asked about later;
    # a merge only where there are facts and history to merge (today is attached verbatim).
    assert provider.calls == {"daily_summary": 7, "historical_summary": 3, "merge": 1}
    assert sorted(days_requested(provider)) == [
        (TODAY - timedelta(days=n)).isoformat() for n in range(6, -1, -1)
    ]
    # Each level saw the right member's material.
    alice = texts[ALICE]
    assert alice is not None
    assert alice.startswith("FACTS Alice is a nurse in Lyon.")
    merged, today = alice.split("\nToday: ")
    assert f"Alice on {TODAY} at 9h" in today
    assert f"Alice on {TODAY - timedelta(days=6)} at 10h" in merged.split("HISTORY")[1]
    assert "Bob on" not in alice


async def test_second_request_and_restart_cost_nothing(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model()
    clock = FixedClock(NOW)
    first = manager(db_pool, provider, clock, telemetry)
    try:
        before = {uid: await full(first, GUILD, uid) for uid in MEMBERS}
        calls = sum(provider.calls.values())
        again = {uid: await full(first, GUILD, uid) for uid in MEMBERS}
        assert sum(provider.calls.values()) == calls
        assert again == before
        report = await first.wait_for_context(GUILD, ALICE)
        assert report.total_llm_calls == 0
        assert report.cache_hits == {"warm": 1}, "served whole from memory, no lookups"
    finally:
        await first.aclose()

    # A new process over the same database: completed days, history and context are stored.
    restarted = manager(db_pool, provider, clock, telemetry)
    try:
        after = {uid: await full(restarted, GUILD, uid) for uid in MEMBERS}
        report = await restarted.wait_for_context(GUILD, BOB)
    finally:
        await restarted.aclose()
    assert sum(provider.calls.values()) == calls
    assert after == before
    assert report.llm_calls == {}


async def test_hundred_concurrent_requests_share_one_build(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model()
    provider.latency = 0.01  # long enough for every request to arrive while the build runs
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        results = await asyncio.gather(*(full(memory, GUILD, CAROL) for _ in range(100)))
    finally:
        await memory.aclose()
    # Carol has no facts: history and today's notes need no merge call.
    assert provider.calls == {"daily_summary": 7, "historical_summary": 1}
    assert len(set(results)) == 1 and results[0] is not None
    assert "Carol on" in results[0]


async def test_today_is_rebuilt_at_most_once_per_hour(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    from db.messages import insert_messages
    from tests.memory.hierarchy_support import message

    await add_members(db_pool)
    await add_week(db_pool)
    provider = model()
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        await full(memory, GUILD, BOB)
        provider.calls.clear()
        provider.requests.clear()

        await insert_messages(db_pool, [message(ALICE, "lunch was great", NOW)])
        clock.advance(timedelta(minutes=20))  # same hour bucket: no new summary of today
        text = await full(memory, GUILD, ALICE)
        assert provider.calls == {}
        assert text is not None and "lunch was great" not in text

        clock.advance(timedelta(minutes=45))  # next hour: today is summarised again, once
        text = await full(memory, GUILD, ALICE)
        await full(memory, GUILD, BOB)
        # Only the new stretch is read; today's notes are attached to the merged facts and
        # history as they are, so a new hour never costs a merge.
        assert provider.calls == {"daily_summary": 1}
        assert days_requested(provider) == [TODAY.isoformat()]
        assert text is not None and "lunch was great" in text
    finally:
        await memory.aclose()


async def test_day_rollover_recomputes_no_completed_day(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, ALICE, "Alice is a nurse.")
    provider = model()
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        provider.calls.clear()
        clock.advance(timedelta(days=1))  # yesterday's summary was taken after its last message
        text = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    # Nothing said yet on the new day, and every completed day is stored: only history rolls.
    assert provider.calls == {"historical_summary": 1, "merge": 1}
    assert text is not None and f"Alice on {TODAY} at 10h" in text


async def test_quiet_members_and_days_are_stored_as_nothing_to_say(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool, authors=(ALICE,))
    quiet = model(daily_summary=lambda request: {"summaries": []})
    memory = manager(db_pool, quiet, FixedClock(NOW), telemetry)
    try:
        assert await full(memory, GUILD, ALICE) is None
    finally:
        await memory.aclose()
    assert quiet.calls == {"daily_summary": 7}
    closed = await db_pool.fetchval("SELECT count(*) FROM summary_days WHERE guild_id = $1", GUILD)
    read = await db_pool.fetchval("SELECT count(*) FROM day_passes WHERE guild_id = $1", GUILD)
    assert (closed, read) == (6, 7)  # six days closed with nothing to say, today read once

    restarted = manager(db_pool, quiet, FixedClock(NOW), telemetry)
    try:
        assert await full(restarted, GUILD, ALICE) is None
    finally:
        await restarted.aclose()
    assert quiet.calls == {"daily_summary": 7}  # the empty days were not asked about again


async def test_build_context_reports_sources_and_costs(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    await set_facts(db_pool, BOB, "Bob plays the cello.")
    memory = manager(db_pool, model(), FixedClock(NOW), telemetry)
    try:
        report = await memory.wait_for_context(GUILD, BOB)
    finally:
        await memory.aclose()
    assert report.member_name == "Bob"
    assert report.fallback is None
    assert report.llm_calls == {"daily_summary": 7, "historical_summary": 1, "merge": 1}
    facts, today, history = (report.source(name) for name in ("facts", "today", "history"))
    assert facts is not None and facts.chars == len("Bob plays the cello.")
    assert today is not None and today.chars > 0
    assert history is not None and history.detail.endswith("(6 days)")
    assert report.days_summarised == sorted(TODAY - timedelta(days=n) for n in range(1, 7))
    ops = {event["op"] for event in telemetry.recent()}
    assert {"daily_summary", "historical_summary", "merge", "cache"} <= ops
    cache_events = telemetry.recent("cache")
    assert any(e["cache"] == "context" and e["hit"] is False for e in cache_events)


async def test_two_processes_summarise_each_guild_day_once(
    db_pool: asyncpg.Pool, database_dsn: str, telemetry: Telemetry
) -> None:
    """Two bot processes (separate pools, separate caches) asked at the same moment: the
    advisory lock lets one summarise each guild-day while the other waits and reuses it."""
    from db.pool import create_pool

    await add_members(db_pool)
    await add_week(db_pool)
    other_pool = await create_pool(database_dsn, min_size=1, max_size=10)
    first, second = model(), model()
    first.latency = second.latency = 0.02
    clock = FixedClock(NOW)
    one = manager(db_pool, first, clock, telemetry)
    two = manager(other_pool, second, clock, telemetry)
    try:
        texts = await asyncio.gather(
            full(one, GUILD, ALICE),
            full(two, GUILD, ALICE),
            full(two, GUILD, BOB),
        )
    finally:
        await one.aclose()
        await two.aclose()
        await other_pool.close()
    assert first.calls["daily_summary"] + second.calls["daily_summary"] == 7
    assert sorted(days_requested(first) + days_requested(second)) == sorted(
        (TODAY - timedelta(days=n)).isoformat() for n in range(7)
    )
    assert texts[0] == texts[1] and texts[2] is not None
