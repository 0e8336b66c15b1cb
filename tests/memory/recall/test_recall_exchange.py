"""A recalled message brings its exchange (real PostgreSQL): the turn it answers and the turns
answering it, reply references first, within its episode; matches sharing an exchange are one
hit, every line once; a question naming a member prefers the exchange they took part in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.recall import RecallHit, RecallService
from tests.support import chat_message, said_order

G = 934
ANA, BEN, CY = 41, 42, 43
ROOM = 600
START = datetime(2024, 2, 3, 19, 0, tzinfo=UTC)


def _chat(*lines: tuple[int, str], minutes: float = 2, **extra: Any) -> list[ChatMessage]:
    return [
        chat_message(
            None,
            text,
            guild_id=G,
            channel_id=ROOM,
            author_id=author,
            created_at=START + timedelta(minutes=minutes * n),
            **extra,
        )
        for n, (author, text) in enumerate(lines)
    ]


async def _members(db_pool: asyncpg.Pool) -> None:
    await upsert_members(
        db_pool,
        [
            Member(G, ANA, username="ana"),
            Member(G, BEN, username="ben"),
            Member(G, CY, username="cy"),
        ],
    )


def _lines(hit: RecallHit) -> list[str]:
    return [line.text for line in sorted([hit, *hit.context], key=said_order)]


def _everything(hits: list[RecallHit]) -> list[str]:
    return [text for hit in hits for text in _lines(hit)]


async def test_a_question_brings_the_answer_said_in_the_next_turn(db_pool: asyncpg.Pool) -> None:
    await _members(db_pool)
    await insert_messages(
        db_pool,
        _chat(
            (BEN, "the heating is broken again"),
            (ANA, "which board games do you play on Sundays?"),
            (CY, "mostly the one with trains and little plastic carriages, takes four hours"),
            (CY, "and chess when it rains"),
            (BEN, "ok time to go"),
        ),
    )
    hits = await RecallService(db_pool).search(G, "board games", limit=3)
    assert _lines(hits[0]) == [
        "the heating is broken again",
        "which board games do you play on Sundays?",
        "mostly the one with trains and little plastic carriages, takes four hours",
        "and chess when it rains",
    ]
    assert [line.side for line in hits[0].context] == ["before", "after", "after"]


async def test_a_reply_reference_comes_first_even_with_lines_between(db_pool: asyncpg.Pool) -> None:
    await _members(db_pool)
    asked, *between = _chat(
        (ANA, "anyone know a good locksmith?"),
        (BEN, "lunch was great"),
        (BEN, "the soup especially"),
        (CY, "the weather turned"),
        minutes=3,
    )
    answer = chat_message(
        None,
        "Pavel on the high street, he came within the hour",
        guild_id=G,
        channel_id=ROOM,
        author_id=CY,
        created_at=START + timedelta(minutes=20),
        reply_to_id=asked.message_id,
    )
    await insert_messages(db_pool, [asked, *between, answer])
    hits = await RecallService(db_pool).search(G, "locksmith", limit=3)
    assert hits[0].text == "anyone know a good locksmith?"
    assert "Pavel on the high street, he came within the hour" in _lines(hits[0])


async def test_an_exchange_stops_at_its_episode(db_pool: asyncpg.Pool) -> None:
    await _members(db_pool)
    lines = _chat(
        (ANA, "what did the vet say about the limp?"),
        (BEN, "a sprain, two weeks of rest"),
        (CY, "new topic: who wants pizza"),
    )
    await insert_messages(db_pool, lines)
    await db_pool.execute(
        """INSERT INTO episodes (guild_id, channel_id, first_message_id, last_message_id,
               started_at, ended_at, message_count, state)
           VALUES ($1, $2, $3, $4, $5, $5, 2, 'closed'), ($1, $2, $6, $6, $5, $5, 1, 'open')""",
        G,
        ROOM,
        lines[0].message_id,
        lines[1].message_id,
        START,
        lines[2].message_id,
    )
    hits = await RecallService(db_pool).search(G, "vet", limit=3)
    assert _lines(hits[0]) == [
        "what did the vet say about the limp?",
        "a sprain, two weeks of rest",
    ]


async def test_matches_in_one_exchange_are_one_hit_and_each_line_is_said_once(
    db_pool: asyncpg.Pool,
) -> None:
    await _members(db_pool)
    await insert_messages(
        db_pool,
        _chat(
            (ANA, "who is bringing the tent on the trip?"),
            (BEN, "I'll bring the tent"),
            (CY, "and I have the stove"),
            (ANA, "perfect, the trip is on"),
        ),
    )
    hits = await RecallService(db_pool).search(G, "who is bringing the tent on the trip?")
    said = _everything(hits)
    assert len(said) == len(set(said)), said
    assert len(hits) == 1
    assert {line.tier for line in hits[0].context if "tent" in line.text} == {0}


async def test_a_named_member_brings_the_exchange_they_took_part_in(db_pool: asyncpg.Pool) -> None:
    """The question's words fit a line by someone else best; the exchange where Ben was asked
    and answered comes first."""
    await _members(db_pool)
    early = _chat(
        (ANA, "where did you go for the anniversary?"),
        (BEN, "a cabin by a fjord, no phone signal at all"),
    )
    later = [
        chat_message(
            None,
            "anniversary plans are stressful",
            guild_id=G,
            channel_id=ROOM + 1,
            author_id=CY,
            created_at=START + timedelta(days=3, minutes=n),
        )
        for n in range(3)
    ]
    await insert_messages(db_pool, [*early, *later])
    hits = await RecallService(db_pool).search(G, "Where did Ben go for the anniversary?", limit=1)
    assert "a cabin by a fjord, no phone signal at all" in _lines(hits[0])
