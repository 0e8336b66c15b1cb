"""A search asked to read only its best hits' exchanges (`in_context`, a reply's search of many
hits, real PostgreSQL): the best come with their exchanges, the later ones alone, none lost;
without it every hit comes with its exchange."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import Member
from memory.recall import RecallService
from tests.support import chat_message

G = 960
DANA, MILO = 61, 62
DAY = datetime(2023, 9, 4, 18, tzinfo=UTC)


async def test_only_the_best_hits_come_with_their_exchanges_when_asked(
    db_pool: asyncpg.Pool,
) -> None:
    await upsert_members(
        db_pool, [Member(G, DANA, username="dana"), Member(G, MILO, username="milo")]
    )
    talk = [  # eight kayak trips, each asked about and answered
        chat_message(
            None,
            text,
            guild_id=G,
            channel_id=620,
            author_id=author,
            created_at=DAY - timedelta(days=80 - 7 * n + lag),
        )
        for n in range(8)
        for author, text, lag in (
            (MILO, f"how was the water on trip {n}?", 0.01),
            (DANA, f"kayak trip number {n} went along the {n}th bay", 0.0),
        )
    ]
    await insert_messages(db_pool, talk)
    search = RecallService(db_pool)

    everything = await search.search(G, "kayak trip", limit=6, summaries=0)
    read = await search.search(G, "kayak trip", limit=6, summaries=0, in_context=2)

    assert len(everything) == len(read) == 6
    assert all(hit.context for hit in everything)
    assert all(hit.context for hit in read[:2])
    assert not any(hit.context for hit in read[2:]), "later hits come alone"
    assert all("kayak trip number" in hit.text for hit in read)
    assert len({hit.message_id for hit in read}) == 6, "none twice"
