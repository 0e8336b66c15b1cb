"""Daily summaries: edits and late messages recompute only their day, day boundaries follow the
guild's timezone, a day over the prompt budget is chunked and reduced, mentions become names."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from db.messages import apply_edits, insert_messages
from memory.core.clock import FixedClock
from memory.ingest import BatchedWriter
from memory.llm.tasks._schemas import DailySummaries
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
    message,
    model,
)


async def test_edit_of_a_past_message_recomputes_only_that_day(db_pool, telemetry) -> None:
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


async def test_late_and_deleted_messages_change_the_fingerprint(db_pool, telemetry) -> None:
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
        writer = BatchedWriter(db_pool, telemetry=telemetry)
        writer.on_messages_changed = memory.messages_changed
        writer.start()
        # a backfilled message for one day (no stale flag: the count changes) ...
        late = datetime.combine(late_day, datetime.min.time(), UTC) + timedelta(hours=20)
        writer.submit(message(BOB, "Bob backfilled", late))
        # ... and a deleted one on another: its content must leave the summaries.
        gone = next(m for m in week if m.content == f"Bob on {deleted_day} at 9h")
        writer.submit_delete(gone.message_id)
        await writer.close()
        text = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    assert sorted(days_requested(provider)) == [deleted_day.isoformat(), late_day.isoformat()]
    assert text is not None
    assert "Bob backfilled" in text
    assert f"Bob on {deleted_day} at 9h" not in text
    assert f"Bob on {deleted_day} at 10h" in text


async def test_day_boundaries_follow_the_guild_timezone(db_pool, telemetry) -> None:
    await add_members(db_pool)
    await db_pool.execute(
        "INSERT INTO guilds (guild_id, name, timezone) VALUES ($1, 'g', 'Asia/Tokyo')", GUILD
    )
    # 23:30 and 00:30 Tokyo time on either side of midnight; both are Nov 5 in UTC.
    before = message(ALICE, "late night in Tokyo", datetime(2026, 11, 5, 14, 30, tzinfo=UTC))
    after = message(ALICE, "just after midnight", datetime(2026, 11, 5, 15, 30, tzinfo=UTC))
    await insert_messages(db_pool, [before, after])
    provider = model()
    # 08:00 UTC on Nov 7 is 17:00 in Tokyo: today is Nov 7 there.
    memory = manager(db_pool, provider, FixedClock(datetime(2026, 11, 7, 8, tzinfo=UTC)), telemetry)
    try:
        report = await memory.wait_for_context(GUILD, ALICE)
    finally:
        await memory.aclose()
    assert report.timezone == "Asia/Tokyo" and report.day == date(2026, 11, 7)
    contents = {
        request.inputs["day"]: [m["content"] for m in request.inputs["messages"]]
        for request in provider.requests
        if request.purpose == "daily_summary"
    }
    assert contents == {
        "2026-11-05": ["late night in Tokyo"],
        "2026-11-06": ["just after midnight"],
    }


async def test_a_day_over_the_prompt_budget_is_chunked_and_reduced(db_pool, telemetry) -> None:
    await add_members(db_pool)
    day = TODAY - timedelta(days=1)
    start = datetime.combine(day, datetime.min.time(), UTC)
    chatter = [
        message(author, f"{author} message {n:03d} " + "blah " * 30, start + timedelta(minutes=n))
        for n in range(60)
        for author in (ALICE, BOB)
    ]
    # Carol speaks once, late in the day: she appears in one chunk only, so no reduce for her.
    chatter.append(message(CAROL, "Carol says good night", start + timedelta(hours=23)))
    await insert_messages(db_pool, chatter)
    provider = model()
    budget = 4000
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry, daily_prompt_max_chars=budget)
    try:
        result = await memory.summarize_day(GUILD, day)
        report = await memory.wait_for_context(GUILD, ALICE)
    finally:
        await memory.aclose()
    daily_requests = [r for r in provider.requests if r.purpose == "daily_summary"]
    assert result.chunks == len(daily_requests) > 1
    assert all(len(r.prompt) <= budget for r in daily_requests)
    assert {r.prompt.split('part="')[1].split('"')[0] for r in daily_requests} == {
        f"{n}/{len(daily_requests)}" for n in range(1, len(daily_requests) + 1)
    }
    # Every message went into exactly one chunk.
    seen = [m["message_id"] for r in daily_requests for m in r.inputs["messages"]]
    assert sorted(seen) == sorted(m.message_id for m in chatter)
    # Alice and Bob span chunks, Carol does not: each of them is reduced exactly once (their
    # long partials do not fit one reduce prompt together here; see the batching test below).
    reduce_requests = [r for r in provider.requests if r.purpose == "daily_reduce"]
    reduced = sorted(m["user_id"] for r in reduce_requests for m in r.inputs["members"])
    assert reduced == [ALICE, BOB]
    assert result.summaries[ALICE].startswith("Reduced: Alice said:")
    assert result.summaries[CAROL] == "Carol said: Carol says good night."
    assert report.llm_calls.get("daily_summary", 0) == 0  # the forced day was already stored


async def test_reduce_is_one_batched_call_for_every_member_that_fits(db_pool, telemetry) -> None:
    names = {100 + n: f"Member{n}" for n in range(12)}
    await add_members(db_pool, names)
    day = TODAY - timedelta(days=1)
    start = datetime.combine(day, datetime.min.time(), UTC)
    chatter = [
        message(author, f"{name} line {n:02d} " + "blah " * 20, start + timedelta(minutes=n))
        for n in range(20)
        for author, name in names.items()
    ]
    await insert_messages(db_pool, chatter)

    def short_daily(request):  # a real model's note per stretch, not a quote of everything
        return DailySummaries(
            summaries=[
                f"{m['key']}: {m['name']} chatted about the weather, the bus strike and lunch"
                " plans, and sounded cheerful throughout the stretch."
                for m in request.inputs["members"]
            ]
        )

    provider = model(daily_summary=short_daily)
    # Summaries of 100 characters: each member's ~120-character note per pass, over more than
    # four passes, outgrows the VERBATIM_DAY bound, so every member is condensed.
    memory = manager(
        db_pool,
        provider,
        FixedClock(NOW),
        telemetry,
        daily_prompt_max_chars=9000,
        daily_summary_chars=100,
    )
    try:
        result = await memory.summarize_day(GUILD, day)
    finally:
        await memory.aclose()
    assert result.chunks > 1
    assert provider.calls["daily_reduce"] == 1, "one call for all twelve members, not twelve"
    [request] = [r for r in provider.requests if r.purpose == "daily_reduce"]
    assert len(request.inputs["members"]) == 12 and len(request.prompt) <= 9000
    assert all(text.startswith("Reduced: ") for text in result.summaries.values())


async def test_mentions_become_names_and_bots_are_not_targets(db_pool, telemetry) -> None:
    await add_members(db_pool)
    from db.members import upsert_members
    from memory.core.models import Member

    await upsert_members(db_pool, [Member(GUILD, 99, username="Helper", is_bot=True)])
    at = NOW - timedelta(hours=1)
    await insert_messages(
        db_pool,
        [
            message(ALICE, f"hey <@{BOB}> and <@!{CAROL}>", at, mentions=(BOB, CAROL)),
            message(99, "beep", at + timedelta(minutes=1), is_bot=True),
        ],
    )
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    try:
        await memory.summarize_day(GUILD, TODAY)
    finally:
        await memory.aclose()
    (request,) = provider.requests
    assert [m["content"] for m in request.inputs["messages"]] == ["hey @Bob and @Carol", "beep"]
    assert [m["author_name"] for m in request.inputs["messages"]] == ["Alice", "Helper"]
    # Mentioned members are targets (what others revealed about them); the bot is not.
    assert [m["user_id"] for m in request.inputs["members"]] == [ALICE, BOB, CAROL]
    assert "&lt;@" not in request.prompt and "<@" not in request.prompt


async def test_an_edit_in_a_folded_stretch_rereads_only_that_stretch(db_pool, telemetry) -> None:
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


async def test_a_restart_mid_day_costs_nothing(db_pool, telemetry) -> None:
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


async def test_an_opt_out_while_a_stretch_is_read_leaves_no_note_behind(db_pool, telemetry) -> None:
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

    async def slow_daily(request):
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


async def test_a_day_of_notes_longer_than_a_summary_closes_without_a_call(
    db_pool, telemetry
) -> None:
    """A member who spoke in several passes has notes longer than one summary: they are the
    day's summary as they are (the narrative condenses them when it rolls), morning included."""
    await add_members(db_pool)
    day = TODAY - timedelta(days=1)
    start = datetime.combine(day, datetime.min.time(), UTC)
    hours = (8, 11, 14, 17, 20)
    await insert_messages(
        db_pool,
        [
            message(
                ALICE, f"I told everyone about part {h} of the trip", start + timedelta(hours=h)
            )
            for h in hours
        ],
    )
    provider = model()
    clock = FixedClock(start)
    memory = manager(db_pool, provider, clock, telemetry, daily_summary_chars=150)
    try:
        for hour in (9, 12, 15, 18):  # asked about through the day: a pass per request
            clock.set(start + timedelta(hours=hour))
            await full(memory, GUILD, ALICE)
        clock.set(NOW)
        result = await memory.summarize_day(GUILD, day)
    finally:
        await memory.aclose()
    assert provider.calls["daily_summary"] == len(hours)
    assert provider.calls["daily_reduce"] == 0
    summary = result.summaries[ALICE]
    assert len(summary) > 150  # longer than one summary, kept whole
    assert all(f"part {h} of" in summary for h in hours)
