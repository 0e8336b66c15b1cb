"""Daily summaries, how one day is summarised: its boundaries follow the guild's timezone, a
day over the prompt budget is chunked and reduced (in one batched call for every member that
fits), mentions become names and bots are not targets, and a day of notes longer than a
summary closes without a call."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import asyncpg

from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.llm.providers import LLMRequest
from memory.llm.tasks import DailySummaries
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    NOW,
    TODAY,
    add_members,
    full,
    manager,
    message,
    model,
)


async def test_day_boundaries_follow_the_guild_timezone(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
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


async def test_a_day_over_the_prompt_budget_is_chunked_and_reduced(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
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


async def test_reduce_is_one_batched_call_for_every_member_that_fits(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
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

    # A real model's note per stretch, not a quote of everything.
    def short_daily(request: LLMRequest) -> DailySummaries:
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


async def test_mentions_become_names_and_bots_are_not_targets(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
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


async def test_a_day_of_notes_longer_than_a_summary_closes_without_a_call(
    db_pool: asyncpg.Pool, telemetry: Telemetry
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
