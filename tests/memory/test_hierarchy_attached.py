"""A member asked about who was not in the batch of the day that closed: their earlier
narrative with the newer day attached verbatim, no call of their own; the next day's batch
rolls them forward."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from memory.core.clock import FixedClock
from memory.llm._base import LLMRequest
from memory.llm._offline import HANDLERS
from memory.llm._schemas import DailySummaries, TextOutput
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
    model,
)


def offline_history(request: LLMRequest) -> TextOutput | DailySummaries:
    """The offline provider's own (extractive, honest) narrative."""
    answer: Any = HANDLERS["historical_summary"](request.inputs)
    return DailySummaries(**answer) if "members" in request.inputs else TextOutput(**answer)


def _histories(provider: Any) -> list[LLMRequest]:
    return [r for r in provider.requests if r.purpose == "historical_summary"]


async def _bob_asked_two_days_ago(memory: Any, clock: FixedClock) -> None:
    """Bob is asked about two days ago, Alice yesterday (so Bob is not in yesterday's batch)."""
    clock.set(NOW - timedelta(days=2))
    await full(memory, GUILD, BOB)
    clock.set(NOW - timedelta(days=1))
    await full(memory, GUILD, ALICE)
    clock.set(NOW)
    await full(memory, GUILD, CAROL)  # today's first request closes yesterday


async def test_the_newest_day_is_attached_to_the_earlier_narrative_without_a_call(
    db_pool, telemetry
) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    try:
        await _bob_asked_two_days_ago(memory, clock)
        provider.requests.clear()
        bob = await full(memory, GUILD, BOB)
        assert _histories(provider) == []
        # Tomorrow the day that closes rolls Bob forward in its batch: he was asked today.
        clock.set(NOW + timedelta(days=1))
        await full(memory, GUILD, ALICE)
    finally:
        await memory.aclose()
    yesterday = TODAY - timedelta(days=1)
    assert bob is not None
    assert f"Bob on {yesterday} at 9h" in bob  # the newest day, verbatim
    assert f"Bob on {TODAY - timedelta(days=4)} at 9h" in bob  # from the earlier narrative
    [batch] = _histories(provider)
    assert str(BOB) in batch.inputs["previous"]
    assert [d["day"] for d in batch.inputs["days"][str(BOB)]] == [
        yesterday.isoformat(),
        TODAY.isoformat(),
    ]


async def test_a_forgotten_statement_stays_out_of_an_attached_day(db_pool, telemetry) -> None:
    await add_members(db_pool)
    await add_week(db_pool)
    provider = model(historical_summary=offline_history)
    clock = FixedClock(NOW)
    memory = manager(db_pool, provider, clock, telemetry)
    yesterday = TODAY - timedelta(days=1)
    try:
        await _bob_asked_two_days_ago(memory, clock)
        await add_forgotten(db_pool, BOB, f"Bob on {yesterday} at 9h")
        memory.invalidate(GUILD, BOB)  # what a forget command does to the caches
        bob = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    assert bob is not None and f"Bob on {yesterday} at 9h" not in bob
