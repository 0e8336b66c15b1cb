"""Reading less: a history rolled forward from yesterday's narrative plus the newest day, notes
that share their day's room, passes that wait while nothing new concerns the member asked
about, and members named in prompts as the chat names them."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg

from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, PromptMember, PromptMessage
from memory.llm.offline import HANDLERS, OfflineProvider
from memory.llm.providers import LLMRequest
from memory.llm.tasks import DailySummaries, TextOutput
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    GUILD,
    NOW,
    TODAY,
    add_forgotten,
    add_members,
    full,
    manager,
    message,
    model,
)

PIXEL = "I adopted a greyhound named Pixel"


def offline_history(request: LLMRequest) -> TextOutput | DailySummaries:
    """The offline provider's own (extractive, honest) narrative."""
    answer: Any = HANDLERS["historical_summary"](request.inputs)
    return DailySummaries(**answer) if "members" in request.inputs else TextOutput(**answer)


def at(day: date, hour: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


async def _alice_week(db_pool: Any) -> None:
    """Alice's pet on the first day of today's window, then something each day after."""
    first = TODAY - timedelta(days=6)
    chat = [message(ALICE, PIXEL, at(first, 9))]
    chat += [
        message(
            ALICE,
            f"I am planning the trip to Lisbon, part {offset}",
            at(first + timedelta(days=offset), 9),
        )
        for offset in range(1, 7)
    ]
    await insert_messages(db_pool, chat)


def _history_requests(provider: Any) -> list[LLMRequest]:
    return [r for r in provider.requests if r.purpose == "historical_summary"]


async def test_history_rolls_forward_and_keeps_a_fact_from_six_days_ago(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await _alice_week(db_pool)
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW - timedelta(days=1))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)  # yesterday: the narrative of the six days before
        first = _history_requests(provider)
        assert len(first) == 1 and not first[0].inputs.get("previous")
        provider.requests.clear()

        clock.set(NOW)
        text = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    rolled = _history_requests(provider)
    assert len(rolled) == 1
    inputs = rolled[0].inputs
    batched = "members" in inputs  # the day that closed built it in the guild's batch
    previous = inputs["previous"][str(ALICE)] if batched else inputs["previous"]
    days = inputs["days"][str(ALICE)] if batched else inputs["days"]
    # Yesterday's narrative and only the newest day are read, not six daily summaries again.
    assert previous["until"] == (TODAY - timedelta(days=2)).isoformat()
    assert [d["day"] for d in days] == [(TODAY - timedelta(days=1)).isoformat()]
    older_day_lines = [f"{TODAY - timedelta(days=n)}: " for n in range(2, 7)]
    assert not any(line in rolled[0].prompt for line in older_day_lines)
    assert text is not None and "greyhound named Pixel" in text


async def test_a_forget_between_two_days_leaves_the_statement_out_of_the_next_history(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await _alice_week(db_pool)
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW - timedelta(days=1))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        before = await full(memory, GUILD, ALICE)
        await add_forgotten(db_pool, ALICE, "Alice adopted a greyhound named Pixel")
        memory.invalidate(GUILD, ALICE)  # what a forget command does to the caches
        clock.set(NOW)
        after = await full(memory, GUILD, ALICE)
        stored = await db_pool.fetchval(
            "SELECT summary FROM historical_summaries WHERE guild_id = $1 AND user_id = $2"
            " AND end_day = $3",
            GUILD,
            ALICE,
            TODAY - timedelta(days=1),
        )
    finally:
        await memory.aclose()
    assert before is not None and "Pixel" in before
    assert after is not None and "Pixel" not in after and "Lisbon" in after
    assert "Pixel" not in stored


async def test_a_member_silent_since_their_last_history_keeps_it_without_a_call(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await insert_messages(db_pool, [message(ALICE, PIXEL, at(TODAY - timedelta(days=4), 9))])
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW - timedelta(days=1))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        provider.calls.clear()
        clock.set(NOW)
        text = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    assert provider.calls["historical_summary"] == 0
    assert text is not None and "greyhound named Pixel" in text


async def test_a_pass_waits_while_the_new_messages_do_not_concern_the_member(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    morning = at(TODAY, 8)
    await insert_messages(db_pool, [message(ALICE, "Alice is baking bread", morning)])
    provider = model()
    clock = FixedClock(at(TODAY, 9))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        assert provider.calls["daily_summary"] == 1
        # Bob talks; an hour later Alice is asked about: nothing new concerns her, no pass.
        await insert_messages(db_pool, [message(BOB, "Bob fixed his bike", at(TODAY, 9))])
        clock.set(at(TODAY, 10))
        alice = await full(memory, GUILD, ALICE)
        assert provider.calls["daily_summary"] == 1
        # Asked about Bob, the waiting stretch is read at once: his news is there.
        bob = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    assert provider.calls["daily_summary"] == 2
    assert alice is not None and "baking bread" in alice
    assert bob is not None and "fixed his bike" in bob


async def test_answers_name_members_as_the_chat_does_and_map_back_to_their_ids() -> None:
    members = [
        PromptMember(user_id=300000000001000047, name="alice", aliases=["Ali"]),
        PromptMember(user_id=300000000001000048, name="bob"),
    ]
    messages = [
        PromptMessage(
            message_id=1,
            timestamp=datetime(2024, 5, 1, 12, tzinfo=UTC),
            author_id=members[0].user_id,
            author_name="alice",
            content="I live in Porto and I finally got the job at the bakery!",
        ),
    ]
    provider = _Capture()
    notes, learned = await MemoryLLM(provider).summaries.read_stretch(
        guild_id=1,
        day=date(2024, 5, 1),
        timezone="UTC",
        messages=messages,
        members=members,
        max_chars=300,
    )
    prompt, answer = provider.exchanges[0]
    assert "300000000001000047" not in prompt and "300000000001000047" not in answer
    assert '"alice: ' in answer  # named as the transcript names her, no handle to define
    # Nothing to explain (the alias the chat never writes is left out, no note is capped):
    # no targets block at all.
    assert "<targets>" not in prompt and "Ali" not in prompt
    assert "got the job at the bakery" in notes[members[0].user_id]
    assert notes[members[1].user_id] == ""  # bob did nothing: no entry in the answer at all
    assert {item.user_id for item in learned} == {"300000000001000047"}


async def test_a_note_gets_the_room_its_day_has_left(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    long_news = "I finally got the job at the bakery and start on monday, so nervous about it"
    await insert_messages(
        db_pool,
        [
            message(ALICE, f"{long_news} ({n})", at(TODAY, 8) + timedelta(minutes=n))
            for n in range(5)
        ],
    )
    provider = model()
    clock = FixedClock(at(TODAY, 9))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        await insert_messages(db_pool, [message(ALICE, "Alice's second stretch", at(TODAY, 9))])
        clock.set(at(TODAY, 10))
        await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    second = [r for r in provider.requests if r.purpose == "daily_summary"][1]
    alice = next(m for m in second.inputs["members"] if int(m["user_id"]) == ALICE)
    # The first stretch's note took most of the day's 360 characters: this one gets the floor.
    assert alice["max_chars"] == 100
    assert " ≤100" in second.prompt


class _Capture(OfflineProvider):
    def __init__(self) -> None:
        self.exchanges: list[tuple[str, str]] = []

    async def complete(self, request: LLMRequest) -> Any:
        response = await super().complete(request)
        self.exchanges.append((request.prompt, response.text))
        return response


async def test_a_pass_waits_while_every_unread_message_is_under_an_hour_old(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await insert_messages(db_pool, [message(ALICE, "Alice is baking bread", at(TODAY, 8))])
    provider = model()
    clock = FixedClock(at(TODAY, 9))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        sent = at(TODAY, 10) + timedelta(minutes=30)
        await insert_messages(db_pool, [message(ALICE, "Alice burnt the second loaf", sent)])
        clock.set(sent + timedelta(minutes=40))  # a new hour, but her news is 40 minutes old
        waited = await full(memory, GUILD, ALICE)
        assert provider.calls["daily_summary"] == 1
        clock.set(at(TODAY, 12))  # the next hour: an hour and a half old now, read
        read = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    assert provider.calls["daily_summary"] == 2
    assert waited is not None and "baking bread" in waited and "burnt" not in waited
    assert read is not None and "burnt the second loaf" in read


async def test_the_days_first_pass_is_not_put_off_for_young_messages(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    sent = at(TODAY, 9)
    await insert_messages(db_pool, [message(ALICE, "Alice is baking bread", sent)])
    provider = model()
    memory = manager(db_pool, provider, FixedClock(sent + timedelta(minutes=5)), telemetry)
    try:
        alice = await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    assert provider.calls["daily_summary"] == 1
    assert alice is not None and "baking bread" in alice
