"""A question naming when ("in July", "on 1 May, 2022", "yesterday") prefers what was said
then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage, Member
from memory.recall import RecallService
from tests.support import chat_message

G, SAM = 930, 93
NOW = datetime(2026, 9, 1, 18, tzinfo=UTC)


def _said(text: str, when: datetime) -> ChatMessage:
    return chat_message(None, text, guild_id=G, channel_id=5, author_id=SAM, created_at=when)


async def test_the_month_asked_about_ranks_its_message_first(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, SAM, username="sam")])
    july = "baked a sourdough loaf this weekend with the new starter from the farmers market"
    await insert_messages(
        db_pool,
        [
            _said("baked a sourdough loaf", datetime(2026, 3, 7, 12, tzinfo=UTC)),
            _said(july, datetime(2026, 7, 18, 12, tzinfo=UTC)),
            _said("the weather is nice", NOW - timedelta(days=1)),
        ],
    )
    recall = RecallService(db_pool, clock=FixedClock(NOW))
    undated = await recall.search(G, "what sourdough did sam bake?")
    assert undated[0].text == "baked a sourdough loaf"  # shorter: first on words alone
    dated = await recall.search(G, "what sourdough did sam bake in July?")
    assert dated[0].text == july
    told_later = await recall.search(G, "what sourdough did sam bake on 15 July?")
    assert told_later[0].text == july  # told three days after the day asked about


async def test_a_time_relative_to_today_ranks_what_was_said_then(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, SAM, username="sam")])
    yesterday = "the boat engine stalled again out by the pier, towed it back to the dock"
    earlier = "the boat engine stalled again out by the lighthouse, rowed back in the dark"
    await insert_messages(
        db_pool,
        [
            _said("the boat engine stalled", NOW - timedelta(days=20)),
            _said(earlier, NOW - timedelta(days=28)),
            _said(yesterday, NOW - timedelta(days=1)),
        ],
    )
    recall = RecallService(db_pool, clock=FixedClock(NOW))
    undated = await recall.search(G, "what did sam say about the boat engine?")
    assert undated[0].text == earlier
    asked_yesterday = await recall.search(G, "what did sam say about the boat engine yesterday?")
    assert asked_yesterday[0].text == yesterday
    three_weeks = await recall.search(G, "what did sam say about the boat engine 3 weeks ago?")
    assert three_weeks[0].text == "the boat engine stalled"
