"""A reply's search past its best hits (`own_first_after`, real PostgreSQL): when a question
names a member, the later hits are that member's own lines before anyone else's matching the
same words; a search not asking for it, or naming nobody, keeps its order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import Member
from memory.recall import RecallService
from tests.support import chat_message

G = 961
ALICE, BOB = 71, 72
DAY = datetime(2023, 9, 4, 18, tzinfo=UTC)
BOBS = [  # short and holding both asked words: full text ranks them over hers
    "nice painting of the lake!",
    "that lake painting is lovely",
    "more lake painting please",
    "wow, the lake in that painting",
]
ALICES = [  # one asked word each in long lines: her boost does not lift them over bob's
    "I finished a painting of a horse on the old barn wall last weekend with my kids, they"
    " helped with the mane and the tail and we had lemonade after",
    "my latest painting is a sunset over the hills, the pink sky took me three evenings and"
    " the reflections on the water were the hardest part of it all",
    "signed up for a painting class downtown, first lesson is watercolour still life with"
    " fruit bowls and bottles, the teacher seems lovely and patient",
]


async def test_a_named_members_own_lines_come_first_past_the_best_hits(
    db_pool: asyncpg.Pool,
) -> None:
    await upsert_members(
        db_pool, [Member(G, ALICE, username="alice"), Member(G, BOB, username="bob")]
    )
    filler = [
        (BOB if n % 2 else ALICE, f"errand {n}: groceries, laundry and the bus") for n in range(60)
    ]
    # (the filler makes the asked words rare, so they outweigh who is named)
    said = filler + [(ALICE, text) for text in ALICES] + [(BOB, text) for text in BOBS]
    await insert_messages(
        db_pool,
        [
            chat_message(
                None,
                text,
                guild_id=G,
                channel_id=630,
                author_id=author,
                created_at=DAY - timedelta(days=100 - n),
            )
            for n, (author, text) in enumerate(said)
        ],
    )
    search = RecallService(db_pool)
    question = "what has alice painted of the lake?"

    # (every hit alone, no exchanges read: the order is the matches' own)
    plain = await search.search(G, question, limit=4, summaries=0, in_context=0)
    own_first = await search.search(
        G, question, limit=4, summaries=0, in_context=0, own_first_after=1
    )

    assert sum(hit.author_id == ALICE for hit in plain) == 1, "without it bob's outrank hers"
    assert len(own_first) == 4
    assert sum(hit.author_id == ALICE for hit in own_first) == len(ALICES), "all of hers shown"
    assert own_first[0].message_id == plain[0].message_id, "the best match keeps its place"
    assert [hit.author_id for hit in own_first[1:]] == [ALICE] * 3, "hers before bob's"


async def test_a_question_naming_nobody_keeps_its_order(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G + 1, BOB, username="bob")])
    await insert_messages(
        db_pool,
        [
            chat_message(
                None,
                text,
                guild_id=G + 1,
                channel_id=631,
                author_id=BOB if n % 2 else ALICE,
                created_at=DAY - timedelta(days=n),
            )
            for n, text in enumerate(BOBS + ALICES)
        ],
    )
    search = RecallService(db_pool)

    plain = await search.search(G + 1, "who painted?", limit=5, summaries=0, in_context=1)
    asked = await search.search(
        G + 1, "who painted?", limit=5, summaries=0, in_context=1, own_first_after=1
    )

    assert [hit.message_id for hit in asked] == [hit.message_id for hit in plain]
