"""A reply's search past its best hits (`own_first_after`, real PostgreSQL): when a question
names a member, the later hits are that member's own statements, then their questions, before
anyone else's matching the same words; a search not asking for it keeps its order."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import Member
from memory.recall import RecallHit, RecallService
from tests.support import days_apart, errands

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


async def _searched(
    pool: asyncpg.Pool, hers: list[str], limit: int
) -> tuple[list[RecallHit], list[RecallHit]]:
    """ "what has alice painted of the lake?" over alice's `hers` and bob's lines amid
    everyday chat (which makes the asked words rare, so they outweigh who is named): the
    hits without and with `own_first_after=1`, every hit alone (no exchanges read: the order
    is the matches' own)."""
    await upsert_members(pool, [Member(G, ALICE, username="alice"), Member(G, BOB, username="bob")])
    said = errands(60, (ALICE, BOB)) + [(ALICE, t) for t in hers] + [(BOB, t) for t in BOBS]
    await insert_messages(pool, days_apart(said, guild_id=G, channel_id=630, last=DAY))
    search = RecallService(pool)
    question = "what has alice painted of the lake?"
    plain = await search.search(G, question, limit=limit, summaries=0, in_context=0)
    own_first = await search.search(
        G, question, limit=limit, summaries=0, in_context=0, own_first_after=1
    )
    return plain, own_first


async def test_a_named_members_own_lines_come_first_past_the_best_hits(
    db_pool: asyncpg.Pool,
) -> None:
    plain, own_first = await _searched(db_pool, ALICES, limit=4)

    assert not any(hit.author_id == ALICE for hit in plain), "without it bob's outrank hers"
    assert len(own_first) == 4
    assert sum(hit.author_id == ALICE for hit in own_first) == len(ALICES), "all of hers shown"
    assert own_first[0].message_id == plain[0].message_id, "the best match keeps its place"
    assert [hit.author_id for hit in own_first[1:]] == [ALICE] * 3, "hers before bob's"


ALICE_ASKS = [  # short and holding both asked words: her questions outrank her statements
    "which lake painting should I try next?",
    "bob, is your lake painting finished?",
]


async def test_past_the_best_hits_a_named_members_questions_follow_her_statements(
    db_pool: asyncpg.Pool,
) -> None:
    """A later hit is shown alone: alice asking bob about his painting says nothing of what
    she painted, so her statements come first, her questions after them, bob's last."""
    plain, own_first = await _searched(db_pool, [*ALICES, *ALICE_ASKS], limit=9)

    hers = [hit.text for hit in plain if hit.author_id == ALICE]
    assert hers.index(ALICE_ASKS[1]) < max(hers.index(t) for t in ALICES), "asks outrank"
    later = [hit.text for hit in own_first[1:]]
    statements = [later.index(text) for text in ALICES if text in later]
    questions = [later.index(text) for text in ALICE_ASKS if text in later]
    assert len(statements) == len(ALICES) and questions, "all of hers shown"
    assert max(statements) < min(questions), "her statements before her questions"
    assert all(later.index(t) > max(questions) for t in BOBS if t in later), "bob's last"
