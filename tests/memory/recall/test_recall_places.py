"""A question asking where a member has been (real PostgreSQL): the lines where they name a
place share no word with "which countries has pilar been to?", yet they are the answer. They
come from the member lane before the member's other statements (before her news too: the
question is also one about news), and in a reply's search right after its best hit, before
later matches of the question's words (here bob's)."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import Member
from memory.recall import RecallHit, RecallService
from tests.support import days_apart, errands

G = 962
PILAR, BOB = 81, 82
DAY = datetime(2023, 9, 4, 18, tzinfo=UTC)
PLACES = [
    # Not news (a present tense), where "has pilar been to" also asks for news: places first.
    "my cousin lives in Peru and I fly out there most winters",
    "took the kids to Morocco for the break, so good",
]
# Rarer words and longer: without the places asked for, these are her most informative lines.
STATEMENTS = [
    "finally finished restoring the walnut harpsichord, the quills and jacks took months of"
    " evenings with tweezers and a magnifier lamp",
    "my sourdough starter survived the heatwave, the rye levain smells like green apples and"
    " vinegar now which is apparently normal",
    "signed the paperwork for the allotment plot, planting kohlrabi, fennel and tomatillos"
    " next to the beekeeper's hives",
    "our choir is rehearsing a Monteverdi vespers with cornetts and sackbuts, the tuning is"
    " brutal but glorious",
    "adopted a retired greyhound called Biscuit, she sleeps upside down on the sofa and"
    " snores like a tractor",
]
# Bob's lines hold the asked word: the question's own matches.
BOBS = [
    "I read a book about countries with the most volcanoes",
    "there are so many countries I still want to see",
]
QUESTION = "which countries has pilar been to?"


async def _hits(pool: asyncpg.Pool, question: str) -> list[RecallHit]:
    await upsert_members(pool, [Member(G, PILAR, username="pilar"), Member(G, BOB, username="bob")])
    said = [
        *errands(60, (PILAR, BOB)),
        *[(PILAR, text) for text in [*PLACES, *STATEMENTS]],
        *[(BOB, text) for text in BOBS],
    ]
    await insert_messages(pool, days_apart(said, guild_id=G, channel_id=640, last=DAY))
    return await RecallService(pool).search(
        G, question, limit=6, summaries=0, statements=3, in_context=1, own_first_after=1
    )


async def test_where_a_member_has_been_brings_the_lines_naming_a_place_early(
    db_pool: asyncpg.Pool,
) -> None:
    hits = await _hits(db_pool, QUESTION)

    texts = [hit.text for hit in hits]
    assert set(PLACES) <= set(texts[:3]), f"among the first hits: {texts}"
    last_place = max(texts.index(place) for place in PLACES)
    later_bobs = [at for at, text in enumerate(texts) if text in BOBS and at > 0]
    assert later_bobs, texts
    assert all(at > last_place for at in later_bobs), "past the best hit, before bob's matches"


async def test_a_question_not_asking_where_keeps_her_most_informative_lines(
    db_pool: asyncpg.Pool,
) -> None:
    """The same member and chat, asked what she is into: her places do not go first,
    her most informative lines come (the short Morocco line is not one of them)."""
    hits = await _hits(db_pool, "what is pilar into?")

    texts = [hit.text for hit in hits]
    assert PLACES[1] not in texts, texts
    assert any(text in STATEMENTS for text in texts[:3]), texts
