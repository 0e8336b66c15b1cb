"""Recall follows what a member said across sessions (real PostgreSQL): a change of mind brings
the plan it changed, and a past-tense answer is found for a present-tense question."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.recall import RecallService, query_terms
from tests.support import chat_message

G = 930
DANA, MILO = 31, 32
DAY = datetime(2023, 9, 4, 18, tzinfo=UTC)


def _said(author: int, text: str, days_ago: float) -> ChatMessage:
    return chat_message(
        None,
        text,
        guild_id=G,
        channel_id=600,
        author_id=author,
        created_at=DAY - timedelta(days=days_ago),
    )


async def _seed(db_pool: asyncpg.Pool) -> None:
    await upsert_members(
        db_pool, [Member(G, DANA, username="dana"), Member(G, MILO, username="milo")]
    )
    chatter = [
        _said(MILO if n % 2 else DANA, f"the weather is fine today, day {n}", 50 - n)
        for n in range(40)
    ]
    await insert_messages(
        db_pool,
        [
            *chatter,
            _said(DANA, "I'm pretty sure I'm buying a Subaru next month", 60),
            _said(MILO, "a Subaru? nice, my cousin has one", 59.9),
            _said(DANA, "changed my mind about the car, getting a Skoda instead of a Subaru", 20),
            _said(MILO, "I grew up in Nantes, by the river", 30),
        ],
    )


async def test_a_change_of_mind_brings_the_plan_it_changed(db_pool: asyncpg.Pool) -> None:
    await _seed(db_pool)

    hits = await RecallService(db_pool).search(G, "Which car is Dana getting?", limit=3)

    texts = [hit.text for hit in hits]
    assert texts[0].startswith("changed my mind about the car")
    assert "I'm pretty sure I'm buying a Subaru next month" in texts, "the earlier session came"
    assert not any(text.startswith("a Subaru? nice") for text in texts[:2]), "only Dana's own"


async def test_a_present_tense_question_finds_a_past_tense_answer(db_pool: asyncpg.Pool) -> None:
    await _seed(db_pool)
    assert {"grow", "grew", "grown"} <= set(query_terms("Where did Milo grow up?"))

    hits = await RecallService(db_pool).search(G, "Where did Milo grow up?", limit=3)

    assert hits and hits[0].text == "I grew up in Nantes, by the river"


async def test_without_a_named_member_there_is_no_second_hop(db_pool: asyncpg.Pool) -> None:
    await _seed(db_pool)

    hits = await RecallService(db_pool).search(G, "which car is someone getting?", limit=2)

    assert hits[0].text.startswith("changed my mind about the car")
    assert all("buying a Subaru next month" not in hit.text for hit in hits)


async def test_the_later_part_of_a_story_moves_up_past_other_members_plans(
    db_pool: asyncpg.Pool,
) -> None:
    # Everyone booked a trip for the autumn break; only Dana changed hers, in words the first
    # search ranks below the others' bookings (only "trip", a travel word, is in common).
    await _seed(db_pool)
    await insert_messages(
        db_pool,
        [
            _said(DANA, "we booked a trip to Lisbon for the autumn break", 80),
            *[
                _said(MILO + n, f"we booked a trip to {town} for the autumn break", 79 - n)
                for n, town in enumerate(("Oslo", "Porto", "Vienna"), start=1)
            ],
            _said(DANA, "the Lisbon trip is off, we go to Bruges instead", 20),
        ],
    )

    hits = await RecallService(db_pool).search(
        G, "Where is Dana travelling for the autumn break?", limit=2, summaries=0
    )

    assert [hit.text for hit in hits] == [
        "we booked a trip to Lisbon for the autumn break",
        "the Lisbon trip is off, we go to Bruges instead",
    ]


async def test_the_second_hop_does_not_follow_a_relative_date(db_pool: asyncpg.Pool) -> None:
    await _seed(db_pool)
    await insert_messages(
        db_pool,
        [
            _said(DANA, "good morning everyone", 12),
            _said(DANA, "this morning I went to the aquarium with my niece", 10),
        ],
    )

    hits = await RecallService(db_pool).search(
        G, "When did Dana go to the aquarium?", limit=3, summaries=0
    )

    assert hits[0].text == "this morning I went to the aquarium with my niece"
    assert "good morning everyone" not in [hit.text for hit in hits], "'morning' is a date"
