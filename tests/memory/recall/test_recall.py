"""Recall search on a real PostgreSQL: a natural question finds the right old message first,
never another guild's, and a member's recall skips what they asked to forget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.recall import RecallService, query_terms
from tests.support import chat_message

G, OTHER = 900, 901
SAM, BOB = 91, 92
DAY = datetime(2026, 9, 1, 18, tzinfo=UTC)


def _said(author: int, text: str, days_ago: int, guild: int = G) -> ChatMessage:
    return chat_message(
        None,
        text,
        guild_id=guild,
        channel_id=5,
        author_id=author,
        created_at=DAY - timedelta(days=days_ago),
    )


async def _seed(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, SAM, username="sam"), Member(G, BOB, username="bob")])
    await insert_messages(
        db_pool,
        [
            _said(SAM, "finally went to the new climbing gym downtown, my arms are dead", 40),
            _said(BOB, "the gym at work has a broken treadmill again", 30),
            _said(SAM, "climbing is the best, going again next week", 20),
            _said(BOB, "anyone up for the cinema on Friday?", 10),
            _said(SAM, "sam went to the climbing gym in another server", 5, guild=OTHER),
        ],
    )


def test_question_words_are_dropped() -> None:
    assert query_terms("When did sam go to that climbing gym?") == ["sam", "climb", "gym"]
    assert query_terms("what did bob say about Berlin?") == ["bob", "berlin"]
    assert query_terms("Что Сергей говорил про концерт в Берлине?") == [
        "сергей",
        "концерт",
        "берлине",
    ]
    assert query_terms("what's the name of kim's dog?") == ["name", "kim", "dog"]


async def test_an_inflected_word_finds_the_other_forms_of_its_stem(db_pool: asyncpg.Pool) -> None:
    """ "climbed" shares no word with "climbing": searched as its stem, it finds it."""
    await _seed(db_pool)
    hits = await RecallService(db_pool).search(G, "where has sam climbed?")
    assert hits and "climbing" in hits[0].text


async def test_a_natural_question_ranks_the_message_about_it_first(db_pool: asyncpg.Pool) -> None:
    await _seed(db_pool)
    hits = await RecallService(db_pool).search(G, "When did sam go to that climbing gym?")
    assert hits, "an OR of terms, not an AND of every word"
    assert hits[0].text.startswith("finally went to the new climbing gym")
    assert hits[0].author_name == "sam" and hits[0].day == "2026-07-23"
    assert hits[0].jump_url(G) == f"https://discord.com/channels/{G}/5/{hits[0].message_id}"
    assert all("another server" not in hit.text for hit in hits)  # never another guild


async def test_a_members_recall_skips_what_they_asked_to_forget(db_pool: asyncpg.Pool) -> None:
    await _seed(db_pool)
    await db_pool.execute(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement) VALUES ($1, $2, $3)",
        G,
        SAM,
        "sam went to the new climbing gym downtown",
    )
    hits = await RecallService(db_pool).search(G, "climbing gym", user_id=SAM)
    assert [hit.text for hit in hits] == ["climbing is the best, going again next week"]
    assert await RecallService(db_pool).search(G, "the what when") == []  # nothing to search


async def test_more_of_the_questions_words_beats_one_word_repeated(db_pool: asyncpg.Pool) -> None:
    await insert_messages(
        db_pool,
        [
            _said(BOB, "gym gym gym, gym again, and the gym after work", 3),
            _said(BOB, "lol the gym", 2),
            _said(SAM, "that peanut allergy scare at the climbing gym", 50),
        ],
    )
    hits = await RecallService(db_pool).search(G, "who went climbing at the gym?")
    assert hits[0].text == "that peanut allergy scare at the climbing gym"
    assert len(hits) == 3


async def test_a_member_named_in_the_question_ranks_their_own_words_first(
    db_pool: asyncpg.Pool,
) -> None:
    """bob's message about Berlin does not say "bob"; messages about Berlin by others, even
    shorter ones, come after it."""
    await upsert_members(db_pool, [Member(G, SAM, username="sam"), Member(G, BOB, username="bob")])
    await insert_messages(
        db_pool,
        [
            _said(SAM, "Berlin!", 4),
            _said(BOB, "Berlin in winter is grey but the techno is worth the trip", 60),
            _said(SAM, "berlin again next year", 3),
        ],
    )
    hits = await RecallService(db_pool).search(G, "what did bob say about Berlin?")
    assert hits[0].text.startswith("Berlin in winter") and hits[0].author_name == "bob"
    assert len(hits) == 3
    hits = await RecallService(db_pool).search(G, "what did sam say about Berlin?")
    assert hits[-1].author_name == "bob"
