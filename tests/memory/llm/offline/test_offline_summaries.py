"""The offline provider summarises realistic chat through the same `MemoryLLM` tasks real
models get: a member's day (informative messages quoted, within the cap, deterministic,
without what was forgotten, without stalling the event loop), parts reduced, and histories
rolled. Its facts are in test_offline_facts.py, its answers in test_offline_replies.py."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import pytest

from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from memory.llm.offline import _provider as offline_module
from memory.llm.tasks import PromptMember
from tests.memory.llm.offline_support import ALICE, BOB, CAROL, DAY, chat_messages


@pytest.fixture
def llm() -> MemoryLLM:
    return MemoryLLM(OfflineProvider())


async def _day(llm: MemoryLLM, **kwargs: Any) -> dict[int, str]:
    arguments: dict[str, Any] = {
        "guild_id": 9,
        "day": DAY,
        "timezone": "UTC",
        "messages": chat_messages(),
        "members": [ALICE, BOB, CAROL],
        "max_chars": 300,
    }
    arguments.update(kwargs)
    notes, _ = await llm.summaries.read_stretch(**arguments)
    return notes


async def test_daily_summary_quotes_the_informative_messages(llm: MemoryLLM) -> None:
    summaries = await _day(llm)
    alice = summaries[1]
    assert alice.startswith("alice said:")
    assert "got the job at the bakery" in alice
    assert "morning all" not in alice and "haha" not in alice and "croissant" not in alice
    # What others revealed about her: a reply to her message and a mention by alias.
    assert 'bob replied to alice: "congrats!! your sourdough is the best in town"' in alice
    assert "moving to Berlin" in alice
    assert len(alice) <= 300


async def test_member_with_nothing_informative_gets_an_empty_summary(llm: MemoryLLM) -> None:
    summaries = await _day(llm)
    assert summaries[3] == ""  # carol: "lol", "ok" and a question about a match
    assert "cat knocked the plant over" in summaries[2]


async def test_daily_summary_respects_a_small_cap(llm: MemoryLLM) -> None:
    summaries = await _day(llm, max_chars=80)
    assert all(len(text) <= 80 for text in summaries.values())
    assert summaries[1].startswith("alice said:")


async def test_daily_summary_is_deterministic(llm: MemoryLLM) -> None:
    assert await _day(llm) == await _day(llm)


async def test_forgotten_statements_stay_out_of_daily_summaries(llm: MemoryLLM) -> None:
    summaries = await _day(llm, forgotten={1: ["alice is moving to Berlin"]})
    assert "Berlin" not in summaries[1]
    assert "bakery" in summaries[1]


async def test_a_busy_day_is_summarised_without_stalling_the_event_loop(
    llm: MemoryLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat: list[tuple[int, str, str, int | None]] = [
        (1 + i % 20, f"user{i % 20}", f"message {i}: I went to the gym and my knee hurts", None)
        for i in range(3000)
    ]
    members = [PromptMember(user_id=1 + i, name=f"user{i}") for i in range(20)]
    ticks = 0
    during: list[int] = []
    summarise = offline_module.HANDLERS["daily_summary"]

    def watched(inputs: Any) -> Any:  # runs wherever the provider runs it
        before = ticks
        answer = summarise(inputs)
        during.append(ticks - before)
        return answer

    monkeypatch.setitem(offline_module.HANDLERS, "daily_summary", watched)

    async def ticker() -> None:  # stands for the gateway heartbeat, ingestion, reply budgets
        nonlocal ticks
        while True:
            await asyncio.sleep(0.001)
            ticks += 1

    beating = asyncio.ensure_future(ticker())
    try:
        summaries = await _day(llm, messages=chat_messages(chat), members=members)
    finally:
        beating.cancel()
    assert all(0 < len(text) <= 300 for text in summaries.values())
    # The loop kept its turns while the day was being summarised: on the loop's own thread the
    # ticker could not have run at all until the work was done (speed is a bench figure).
    assert during and during[0] >= 2, during


async def test_reduce_combines_parts_without_repeats(llm: MemoryLLM) -> None:
    parts = [
        'alice said: "I finally got the job at the bakery!". bob said about alice: "proud of her".',
        'alice said: "I finally got the job at the bakery!". alice said: "first shift at 5am".',
    ]
    reduced = await llm.summaries.reduce_daily(
        guild_id=9, members=[ALICE, BOB], parts={ALICE.user_id: parts}, max_chars=300
    )
    text = reduced[ALICE.user_id]
    assert reduced[BOB.user_id] == "", "a member with no parts gets nothing"
    assert text.count("got the job at the bakery") == 1
    assert "first shift at 5am" in text
    assert len(text) <= 300


async def test_history_keeps_days_in_order_with_dates(llm: MemoryLLM) -> None:
    days = [
        (date(2024, 5, 2), 'alice said: "the first week at the bakery is exhausting".'),
        (date(2024, 5, 1), 'alice said: "I finally got the job at the bakery!".'),
        (date(2024, 5, 3), 'alice said: "I like pizza more than anything".'),
    ]
    text = await llm.summaries.summarize_history(
        guild_id=9, member=ALICE, days=days, max_chars=500, forgotten=["alice likes pizza"]
    )
    assert text.index("May 1") < text.index("May 2")
    assert "pizza" not in text
    assert len(text) <= 500


async def test_a_rolled_history_takes_in_its_newest_days_when_the_old_one_is_full(
    llm: MemoryLLM,
) -> None:
    """The earlier narrative alone fills the length with dense quotes; the newer days must
    still get in (a narrative that kept only its old days would never change again)."""
    news = [
        "booked flights to Lisbon for the harbour festival with three cousins",
        "finished restoring the antique oak bookshelf from grandmother's attic",
        "started volunteering Saturdays at the riverside animal shelter kitchen",
        "won the regional chess tournament semifinal against a grandmaster",
        "painted a mural of lighthouses along the community garden fence",
    ]
    old = " ".join(f'May {day}: alice said: "{text}".' for day, text in enumerate(news, 2))
    text = await llm.summaries.summarize_history(
        guild_id=9,
        member=ALICE,
        days=[(date(2024, 5, 7), 'alice said: "adopted a cat".')],
        max_chars=300,
        previous=(date(2024, 5, 6), old),
        start_day=date(2024, 5, 2),
    )
    assert "May 7" in text and "adopted a cat" in text
    assert len(text) <= 300
