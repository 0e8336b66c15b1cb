"""A narrative a day or two behind is served with the newer days attached verbatim, no call;
the batch when a day closes leaves such members out and rolls them once they are further behind."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.llm.offline import HANDLERS
from memory.llm.providers import LLMRequest
from memory.llm.tasks import DailySummaries, TextOutput
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    CAROL,
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


def offline_history(request: LLMRequest) -> TextOutput | DailySummaries:
    """The offline provider's own (extractive, honest) narrative."""
    answer: Any = HANDLERS["historical_summary"](request.inputs)
    return DailySummaries(**answer) if "members" in request.inputs else TextOutput(**answer)


def _histories(provider: Any) -> list[LLMRequest]:
    return [r for r in provider.requests if r.purpose == "historical_summary"]


async def _bob_one_day_behind(memory: Any, clock: FixedClock) -> None:
    """Bob is asked about yesterday (his narrative then ends the day before), Alice today:
    her request closes yesterday, whose batch leaves Bob out (one day behind)."""
    clock.set(NOW - timedelta(days=1))
    await full(memory, GUILD, BOB)
    clock.set(NOW)
    await full(memory, GUILD, ALICE)


async def _bob_the_baker_asked_again(
    db_pool: Any, telemetry: Any, **settings: Any
) -> tuple[Any, str | None]:
    """Bob (a baker, by his facts) one day behind, asked about again: the provider (its
    counts cleared before that request) and his context."""
    await set_facts(db_pool, BOB, "Bob is a baker in Lyon.")
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry, **settings)
    try:
        await _bob_one_day_behind(memory, clock)
        provider.calls.clear()
        return provider, await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()


async def test_the_newest_day_is_attached_to_the_earlier_narrative_without_a_call(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await _bob_one_day_behind(memory, clock)
        provider.requests.clear()
        bob = await full(memory, GUILD, BOB)
        assert _histories(provider) == []
        # Tomorrow he is two days behind: still attached, no call.
        tomorrow = TODAY + timedelta(days=1)
        await insert_messages(
            db_pool, [message(BOB, "Bob moved to Nantes", NOW + timedelta(days=1))]
        )
        clock.set(NOW + timedelta(days=1))
        await full(memory, GUILD, ALICE)  # closes today; its batch leaves Bob out
        assert BOB not in {m["user_id"] for r in _histories(provider) for m in r.inputs["members"]}
        provider.requests.clear()
        bob_tomorrow = await full(memory, GUILD, BOB)
        assert _histories(provider) == []
        # The day after, the day that closes rolls him forward in its batch: asked about that
        # day, and three days behind by then.
        clock.set(NOW + timedelta(days=2))
        await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    yesterday = TODAY - timedelta(days=1)
    assert bob is not None
    assert f"Bob on {yesterday} at 9h" in bob  # the newest day, verbatim
    assert f"Bob on {TODAY - timedelta(days=4)} at 9h" in bob  # from the earlier narrative
    assert bob_tomorrow is not None
    assert f"Bob on {yesterday} at 9h" in bob_tomorrow and f"Bob on {TODAY} at 9h" in bob_tomorrow
    [batch] = [r for r in _histories(provider) if str(BOB) in r.inputs["days"]]
    assert str(BOB) in batch.inputs["previous"]
    assert [d["day"] for d in batch.inputs["days"][str(BOB)]] == [
        yesterday.isoformat(),
        TODAY.isoformat(),
        tomorrow.isoformat(),
    ]


async def test_a_forgotten_statement_stays_out_of_an_attached_day(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    yesterday = TODAY - timedelta(days=1)
    try:
        await _bob_one_day_behind(memory, clock)
        await add_forgotten(db_pool, BOB, f"Bob on {yesterday} at 9h")
        memory.invalidate(GUILD, BOB)  # what a forget command does to the caches
        bob = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    assert bob is not None and f"Bob on {yesterday} at 9h" not in bob


async def test_the_closing_batch_leaves_out_members_whose_newer_day_fits_attached(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW - timedelta(days=1))
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await full(memory, GUILD, ALICE)
        await full(memory, GUILD, BOB)  # both asked about yesterday
        provider.requests.clear()
        clock.set(NOW)
        await full(memory, GUILD, CAROL)  # closes yesterday: Carol rolls, they need not
        batch = _histories(provider)
        provider.requests.clear()
        bob = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    assert [[m["user_id"] for m in r.inputs["members"]] for r in batch] == [[CAROL]]
    assert _histories(provider) == []
    yesterday = TODAY - timedelta(days=1)
    assert bob is not None and f"Bob on {yesterday} at 9h" in bob
    assert f"Bob on {TODAY - timedelta(days=5)} at 9h" in bob


async def test_an_attached_day_does_not_force_a_new_merge(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider, bob = await _bob_the_baker_asked_again(db_pool, telemetry)
    # Yesterday's merge of his facts and narrative still holds; the newest day follows it.
    assert provider.calls["merge"] == 0 and provider.calls["historical_summary"] == 0
    assert bob is not None and bob.startswith("FACTS Bob is a baker in Lyon.")
    assert f"Bob on {TODAY - timedelta(days=1)} at 9h" in bob.split("HISTORY")[1]


async def test_a_newest_day_longer_than_a_narrative_is_attached_within_the_budget(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """Bob talked a lot yesterday: his day (its notes as they are) is longer than a narrative,
    and is still attached with no call; the context keeps facts and narrative first and cuts
    the attached day to its budget."""
    await add_members(db_pool)
    await add_week(db_pool)
    yesterday = TODAY - timedelta(days=1)
    noon = datetime.combine(yesterday, datetime.min.time(), UTC) + timedelta(hours=12)
    await insert_messages(
        db_pool,
        [
            message(BOB, f"story {n}: " + "the ferry to the island was late " * 2, noon)
            for n in range(8)
        ],
    )
    provider, bob = await _bob_the_baker_asked_again(
        db_pool, telemetry, historical_summary_chars=200, context_max_chars=700
    )
    assert provider.calls["historical_summary"] == 0 and provider.calls["merge"] == 0
    assert bob is not None and len(bob) <= 700
    assert bob.startswith("FACTS Bob is a baker in Lyon.")
    assert "story 0: the ferry" in bob.split("HISTORY")[1]
