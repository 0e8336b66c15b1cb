"""Expansion learned from the guild (pseudo-relevance feedback): the rare words of a search's
best hits find what answers the question in other words; common words and the question's own
add nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.messages import insert_messages
from db.recall import MessageMatch
from memory.recall import RecallService
from memory.recall._feedback import feedback_words
from tests.support import chat_message

G = 936
ANA, BEN = 51, 52
AT = datetime(2024, 5, 4, 12, tzinfo=UTC)


def _match(text: str, rank: float) -> MessageMatch:
    return MessageMatch(1, 1, 1, AT, text, rank)


def test_feedback_words_are_the_best_hits_words_not_the_questions() -> None:
    shares = feedback_words(
        [
            _match("barbecue at Lotte's place, bring charcoal", 3.0),
            _match("barbecue was fun, Lotte's garden is huge", 2.0),
            _match("no barbecue for me this time", 1.0),
        ],
        {"barbecue"},
    )
    assert "barbecue" not in shares
    assert "lotte" in shares and "charcoal" in shares
    assert shares["lotte"] > shares["charcoal"] > shares.get("garden", 0) * 0.99
    assert feedback_words([], {"barbecue"}) == {}


async def test_a_line_in_other_words_is_found_through_the_best_hits(db_pool: asyncpg.Pool) -> None:
    filler = [
        chat_message(
            None,
            f"ordinary chatter number {n} about nothing much",
            guild_id=G,
            channel_id=7,
            author_id=ANA,
            created_at=AT - timedelta(days=30, minutes=n),
        )
        for n in range(60)
    ]
    plan = chat_message(
        None,
        "the barbecue is at Lotte's allotment, she has the grill",
        guild_id=G,
        channel_id=7,
        author_id=ANA,
        created_at=AT - timedelta(days=10),
    )
    other_words = chat_message(
        None,
        "Lotte says the allotment gate code is 4411",
        guild_id=G,
        channel_id=8,
        author_id=BEN,
        created_at=AT - timedelta(days=2),
    )
    await insert_messages(db_pool, [*filler, plan, other_words])
    hits = await RecallService(db_pool).search(G, "where is the barbecue?", limit=5)
    found = [line.text for hit in hits for line in (hit, *hit.context)]
    assert found[0] == "the barbecue is at Lotte's allotment, she has the grill"
    assert "Lotte says the allotment gate code is 4411" in found
