"""Query expansion by question concept (memory/recall/_concepts.py): a question about a
member's work or hobbies finds answers that share no word with it, its own words still
counting more (real PostgreSQL for the searches)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import Member
from memory.recall import RecallService
from memory.recall._concepts import CONCEPTS, related_words, without_idioms
from tests.support import chat_message

G = 931
SAM, NOA = 41, 42
DAY = datetime(2024, 2, 1, 18, tzinfo=UTC)


def test_a_concept_brings_the_words_its_answers_hold() -> None:
    assert {"class", "club", "joined"} <= set(related_words("Which hobbies has Sam taken up?", []))
    assert {"hired", "job", "shift"} <= set(related_words("What does Noa do for a living?", []))
    assert "job" not in related_words("what does Sam do for work?", ["job"]), "own words stay"
    assert related_words("when did sam go to the museum?", []) == []
    assert related_words("what did bob say about Berlin?", []) == []


def test_every_concept_is_small_and_never_lists_a_question_word_twice() -> None:
    names = [concept.name for concept in CONCEPTS]
    assert len(names) == len(set(names))
    assert all(5 <= len(concept.answered_with) <= 30 for concept in CONCEPTS)


def _said(author: int, text: str, days_ago: float):
    return chat_message(
        None,
        text,
        guild_id=G,
        channel_id=700,
        author_id=author,
        created_at=DAY - timedelta(days=days_ago),
    )


async def _seed(db_pool) -> None:
    await upsert_members(db_pool, [Member(G, SAM, username="sam"), Member(G, NOA, username="noa")])
    chatter = [
        _said(SAM if n % 2 else NOA, line, 90 - n)
        for n, line in enumerate(
            ["work was a nightmare again", "the weather is grim", "taking it easy tonight"] * 6
        )
    ]
    await insert_messages(
        db_pool,
        [
            *chatter,
            _said(SAM, "joined a rowing club, the 6am starts are brutal", 70),
            _said(SAM, "my first watercolour class was a mess but fun", 10),
            _said(NOA, "got hired as a paramedic with the county ambulance service", 40),
            _said(SAM, "took my nephew to the zoo on sunday", 30),
        ],
    )


async def test_which_hobbies_finds_the_club_and_the_class_months_apart(db_pool) -> None:
    await _seed(db_pool)

    hits = await RecallService(db_pool).search(G, "Which hobbies has Sam taken up?", limit=3)

    texts = [hit.text for hit in hits]
    assert "joined a rowing club, the 6am starts are brutal" in texts[:2]
    assert "my first watercolour class was a mess but fun" in texts[:2]


async def test_what_someone_does_for_work_finds_the_job_among_work_chatter(db_pool) -> None:
    await _seed(db_pool)

    hits = await RecallService(db_pool).search(G, "What does Noa do for work?", limit=3)

    assert "got hired as a paramedic with the county ambulance service" in [h.text for h in hits]


def test_an_idioms_words_are_not_searched_for_themselves() -> None:
    words = ["hobbies", "sam", "taken", "take", "took"]
    assert without_idioms("Which hobbies has Sam taken up?", words) == ["hobbies", "sam"]
    assert without_idioms("When did Sam take the train?", ["sam", "take"]) == ["sam", "take"]
    assert without_idioms("what did sam take up?", ["sam"]) == ["sam"]
