"""A reply's search (real PostgreSQL, the reply path's own `ReplySearch`): when a question
names a member whose lines the full text ranks below many of someone else's, the named
member's own lines still reach the reply, past the hits it shows whole."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import Member
from memory.core.viewer import Viewer
from memory.recall import Asking, RecallService
from memory.wiring._reply_path import ReplySearch
from tests.support import days_apart, errands

G = 962
ALICE, BOB = 81, 82
DAY = datetime(2023, 9, 4, 18, tzinfo=UTC)
ALICES = (  # one asked word each, in long lines
    "I finished a canoe trip down the old river last weekend with my kids, they paddled"
    " the whole way and we had lemonade on the bank after",
    "my latest canoe is a red cedar one from the shop by the hills, it took me three"
    " evenings to pick and it glides beautifully on calm water",
    "signed up for a canoe class downtown, first lesson is about steering and safety,"
    " the teacher seems lovely and patient with beginners",
)


async def test_a_named_members_own_lines_reach_the_reply_past_the_whole_hits(
    db_pool: asyncpg.Pool,
) -> None:
    await upsert_members(
        db_pool, [Member(G, ALICE, username="alice"), Member(G, BOB, username="bob")]
    )
    said = [
        *errands(900, (ALICE, BOB)),
        *((ALICE, text) for text in ALICES),
        # more of bob's short lines holding both asked words than a reply reads exchanges of
        *((BOB, f"wow, lake canoe number {n}!") for n in range(45)),
    ]
    await insert_messages(db_pool, days_apart(said, guild_id=G, channel_id=640, last=DAY))
    search = ReplySearch(RecallService(db_pool), hits=20, statements=0, semantic_wait=0.0)

    hits = await search.recall_for_reply(
        G, "any lake canoe from alice?", Viewer.everything(), Asking()
    )

    shown = {hit.text for hit in hits}
    assert len(hits) >= 16, "bob's lines fill the rest"
    assert set(ALICES) <= shown, "her own lines are not pushed out by bob's"
