"""A named member's own lines on what is asked, beyond the hits (real PostgreSQL): the lines a
question about one member finds among that member's messages come back alone (without their
exchanges), only theirs, only what the reader may read, never another guild's, never a
forgotten statement, never a line a hit already holds; and none when no one member is named."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.core.viewer import Viewer
from memory.recall import RecallHit, RecallService
from tests.support import chat_message

G, OTHER_GUILD = 940, 941
GENERAL, PRIVATE = 700, 701
MARIA, JOHN, KIM = 41, 42, 43
DAY = datetime(2023, 9, 4, 18, tzinfo=UTC)

# Maria's yoga, told over months, each line in a conversation of its own with John.
YOGA = (
    "Just started doing aerial yoga, it's great",
    "I'm trying kundalini yoga now, very different",
    "Went to a hot yoga session, never sweated so much",
    "my yoga teacher says my headstand is finally steady",
    "signed up for a yoga retreat in the mountains",
    "yoga at sunrise on the beach this morning",
)


def _said(
    author: int, text: str, days_ago: float, *, channel: int = GENERAL, guild: int = G
) -> ChatMessage:
    return chat_message(
        None,
        text,
        guild_id=guild,
        channel_id=channel,
        author_id=author,
        created_at=DAY - timedelta(days=days_ago),
    )


async def _seed(db_pool: asyncpg.Pool) -> None:
    await upsert_members(
        db_pool,
        [
            Member(G, MARIA, username="maria"),
            Member(G, JOHN, username="john"),
            Member(G, KIM, username="kim"),
            Member(OTHER_GUILD, MARIA, username="maria"),
        ],
    )
    talk = []
    for n, line in enumerate(YOGA):
        days_ago = 200 - 30 * n
        talk += [
            _said(JOHN, f"how was your week, Maria? anything new, round {n}", days_ago + 0.01),
            _said(MARIA, line, days_ago),
            _said(JOHN, f"wow, yoga again! tell me more about it, part {n}", days_ago - 0.01),
        ]
    await insert_messages(
        db_pool,
        [
            *talk,
            _said(JOHN, "I tried yoga once and pulled a muscle", 15),
            _said(KIM, "yoga mats are on sale at the corner shop", 14),
            _said(MARIA, "my secret yoga diary lives in the private channel", 12, channel=PRIVATE),
            _said(MARIA, "the yoga studio in the other server is the best", 11, guild=OTHER_GUILD),
        ],
    )


async def _ask(db_pool: asyncpg.Pool, question: str, **options: object) -> list[RecallHit]:
    search = RecallService(db_pool)
    return await search.search(G, question, limit=2, summaries=0, **options)  # type: ignore[arg-type]


async def test_a_question_about_a_member_brings_their_lines_beyond_the_hits(
    db_pool: asyncpg.Pool,
) -> None:
    await _seed(db_pool)

    hits = await _ask(db_pool, "What types of yoga has Maria practiced?", own_lines=10)

    exchanged = [hit for hit in hits if not hit.alone]
    alone = [hit for hit in hits if hit.alone]
    assert len(exchanged) == 2 and all(hit.context for hit in exchanged)
    shown = {line.text for hit in exchanged for line in (hit, *hit.context)}
    assert alone, "the lines the two hits left out come alone"
    assert all(hit.author_id == MARIA and not hit.context for hit in alone)
    assert not shown & {hit.text for hit in alone}, "no line twice"
    assert set(YOGA) <= shown | {hit.text for hit in alone}, "all six of her yoga lines"


async def test_own_lines_keep_to_the_reader_the_guild_and_what_was_forgotten(
    db_pool: asyncpg.Pool,
) -> None:
    await _seed(db_pool)
    await db_pool.execute(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement) VALUES ($1, $2, $3)",
        G,
        MARIA,
        "Maria signed up for a yoga retreat in the mountains",
    )

    everything = await _ask(db_pool, "What yoga has Maria done?", own_lines=20)
    reader = Viewer.of_channels(KIM, {GENERAL})
    hits = await _ask(db_pool, "What yoga has Maria done?", own_lines=20, viewer=reader)

    said = {line.text for hit in hits for line in (hit, *hit.context)}
    assert any("secret yoga diary" in hit.text for hit in everything if hit.alone)
    assert not any("secret yoga diary" in text for text in said), "a channel Kim cannot read"
    assert not any("other server" in text for text in said), "never another guild's"
    assert not any("yoga retreat" in text for text in said), "a forgotten statement"
    assert all(hit.author_id == MARIA for hit in hits if hit.alone)


async def test_no_own_lines_without_one_member_named_or_when_none_are_asked_for(
    db_pool: asyncpg.Pool,
) -> None:
    await _seed(db_pool)

    for question, wanted in (
        ("What types of yoga has Maria practiced?", 0),
        ("What types of yoga has anyone practiced?", 10),
        ("What types of yoga have Maria and John practiced?", 10),
    ):
        hits = await _ask(db_pool, question, own_lines=wanted)
        assert hits, question
        assert not any(hit.alone for hit in hits), question
