"""Daily summaries, when a day is read again: edits and late or deleted messages recompute
only their day (and, in a folded day, only their stretch), a restart mid-day costs nothing,
and an opt-out while a stretch is read leaves no note behind. How one day is summarised is
in test_hierarchy_day_summaries.py."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from db.messages import apply_edits, insert_messages
from memory.core.clock import FixedClock
from memory.core.events import EventBus, MessagesChanged
from memory.core.telemetry import Telemetry
from memory.ingest import BatchedWriter
from memory.llm.providers import LLMRequest
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    GUILD,
    NOW,
    TODAY,
    add_members,
    add_week,
    days_requested,
    full,
    manager,
    message,
    model,
)


async def test_edit_of_a_past_message_recomputes_only_that_day(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    week = await add_week(db_pool)
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        await full(memory, GUILD, ALICE)
        provider.calls.clear()
        provider.requests.clear()

        edited_day = TODAY - timedelta(days=3)
        edited = next(m for m in week if m.author_id == ALICE and m.created_at.date() == edited_day)
        # The ingestion path for an edit: new content, and the day's summary marked stale.
        changed = replace(edited, content="Alice adopted a cat", edited_at=NOW)
        assert await apply_edits(db_pool, [changed]) == (1, 0)
        assert await db_pool.fetchval(
            "SELECT stale FROM summary_days WHERE guild_id = $1 AND day = $2", GUILD, edited_day
        )
        memory.messages_changed()  # what the batched writer's hook does after an edit

        text = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    assert days_requested(provider) == [edited_day.isoformat()]
    # Only that day's stretch is read again; Alice has no facts, so nothing needs a merge.
    assert provider.calls == {"daily_summary": 1, "historical_summary": 1}
    assert text is not None and "Alice adopted a cat" in text
    assert not await db_pool.fetchval(
        "SELECT stale FROM summary_days WHERE guild_id = $1 AND day = $2", GUILD, edited_day
    )


async def test_late_and_deleted_messages_change_the_fingerprint(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    week = await add_week(db_pool)
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    late_day, deleted_day = TODAY - timedelta(days=2), TODAY - timedelta(days=5)
    try:
        await full(memory, GUILD, BOB)
        provider.calls.clear()
        provider.requests.clear()
        # Through the real ingestion path, whose hook tells the manager that days changed:
        events = EventBus()
        events.subscribe(MessagesChanged, lambda _changed: memory.messages_changed())
        writer = BatchedWriter(db_pool, telemetry=telemetry, events=events)
        writer.start()
        # a backfilled message for one day (no stale flag: the count changes) ...
        late = datetime.combine(late_day, datetime.min.time(), UTC) + timedelta(hours=20)
        writer.submit(message(BOB, "Bob backfilled", late))
        # ... and a deleted one on another: its content must leave the summaries.
        gone = next(m for m in week if m.content == f"Bob on {deleted_day} at 9h")
        writer.submit_delete(gone.guild_id, gone.message_id)
        await writer.close()
        text = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    assert sorted(days_requested(provider)) == [deleted_day.isoformat(), late_day.isoformat()]
    assert text is not None
    assert "Bob backfilled" in text
    assert f"Bob on {deleted_day} at 9h" not in text
    assert f"Bob on {deleted_day} at 10h" in text


async def test_an_edit_in_a_folded_stretch_rereads_only_that_stretch(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """Today is read in passes; an edit inside an earlier pass re-does that pass alone, and a
    fact said in the morning is still in the closed day's summary."""
    await add_members(db_pool)
    morning = message(ALICE, "I am allergic to peanuts", NOW.replace(hour=8))
    await insert_messages(
        db_pool, [morning, message(BOB, "hello all", NOW.replace(hour=8, minute=5))]
    )
    provider = model()
    clock = FixedClock(NOW.replace(hour=9))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)  # pass 1: 00:00-09:00
        noon = message(ALICE, "lunch at the new ramen place", NOW.replace(hour=10))
        await insert_messages(db_pool, [noon])
        clock.set(NOW.replace(hour=11))
        memory.messages_changed()
        await full(memory, GUILD, ALICE)  # pass 2: 09:00-11:00, the new message only
        second = [r for r in provider.requests if r.purpose == "daily_summary"][-1]
        assert [m["content"] for m in second.inputs["messages"]] == [noon.content]

        provider.requests.clear()
        edited = replace(morning, content="I am allergic to peanuts and shellfish", edited_at=NOW)
        assert await apply_edits(db_pool, [edited]) == (1, 0)
        clock.set(NOW.replace(hour=12))
        memory.messages_changed()
        text = await full(memory, GUILD, ALICE)
        reread = [r for r in provider.requests if r.purpose == "daily_summary"]
        # the morning stretch again (its two messages), and the new 11:00-12:00 stretch is empty
        assert [[m["content"] for m in r.inputs["messages"]] for r in reread] == [
            ["I am allergic to peanuts and shellfish", "hello all"]
        ]
        assert text is not None and "shellfish" in text and "ramen" in text

        clock.set(NOW + timedelta(days=1))  # the day closes from its notes, no re-read
        provider.requests.clear()
        closed = await memory.summarize_day(GUILD, TODAY, force=False)
        assert [r for r in provider.requests if r.purpose == "daily_summary"] == []
        assert "peanuts and shellfish" in closed.summaries[ALICE]
    finally:
        await memory.aclose()


async def test_a_restart_mid_day_costs_nothing(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    await add_members(db_pool)
    await insert_messages(db_pool, [message(ALICE, "first coffee", NOW.replace(hour=8))])
    provider = model()
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        before = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    calls = sum(provider.calls.values())
    restarted = manager(db_pool, provider, clock, telemetry)
    try:
        assert await full(restarted, GUILD, ALICE) == before
    finally:
        await restarted.aclose()
    assert sum(provider.calls.values()) == calls, "the notes of today are stored"


async def test_an_opt_out_while_a_stretch_is_read_leaves_no_note_behind(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    from db.consent import record_consent
    from tests.memory.hierarchy_support import daily

    await add_members(db_pool)
    await insert_messages(
        db_pool,
        [
            message(ALICE, "I am allergic to peanuts", NOW.replace(hour=9)),
            message(BOB, "good to know", NOW.replace(hour=9, minute=1)),
        ],
    )
    gate, reading = asyncio.Event(), asyncio.Event()

    async def slow_daily(request: LLMRequest) -> Any:
        reading.set()
        await gate.wait()
        return daily(request)

    memory = manager(db_pool, model(daily_summary=slow_daily), FixedClock(NOW), telemetry)
    try:
        building = asyncio.ensure_future(full(memory, GUILD, BOB))
        await asyncio.wait_for(reading.wait(), 10)  # the stretch is being read
        await record_consent(db_pool, GUILD, ALICE, "out", changed_by=ALICE, by_admin=False)
        await db_pool.execute("DELETE FROM messages WHERE author_id = $1", ALICE)
        gate.set()
        await building
    finally:
        await memory.aclose()
    notes = await db_pool.fetchval("SELECT count(*) FROM day_notes WHERE user_id = $1", ALICE)
    assert notes == 0
