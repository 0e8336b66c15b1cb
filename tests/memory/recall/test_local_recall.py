"""Recall by meaning in the default install (no API key, no network): messages the writer
stores are embedded by the local model in the background, and a question that shares no word
with a message still finds it, fused with the full-text rank."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from db.members import upsert_members
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.wiring import Memory, open_memory
from tests.support import chat_message

G, SAM, BOB = 981, 98, 99
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)
SAID = [
    (SAM, "my puppy chewed my shoes again"),
    (BOB, "we had ramen and sushi tonight"),
    (SAM, "got promoted to senior engineer at work"),
    (BOB, "the train to Lisbon was delayed"),
]
QUESTION = "does she have a dog?"  # no word in common with the answer


def _settings(tmp_path: Path, **changes: Any) -> Settings:
    """Settings from keyword values, validated by pydantic as an .env file's would be."""
    return Settings(_env_file=None, log_dir=tmp_path / "logs", **changes)


async def _opened(settings: Settings, pool: asyncpg.Pool) -> AsyncIterator[Memory]:
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=pool, telemetry=Telemetry()
    ) as opened:
        for number, (author, text) in enumerate(SAID, start=1):
            at = NOW - timedelta(minutes=30 - number)
            message = chat_message(number, text, guild_id=G, author_id=author, created_at=at)
            assert opened.writer.submit(message)
        await opened.writer.flush()
        await opened.embeddings.settled()
        yield opened


@pytest.fixture
async def memory(db_pool: asyncpg.Pool, tmp_path: Path) -> AsyncIterator[Memory]:
    async for opened in _opened(_settings(tmp_path), db_pool):
        yield opened


async def test_stored_messages_are_embedded_locally_as_they_arrive(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    rows = await db_pool.fetch(
        "SELECT message_id, model, vector_dims(embedding) AS width FROM message_embeddings"
        " ORDER BY 1"
    )
    assert [(row["message_id"], row["model"], row["width"]) for row in rows] == [
        (number, "local:wordllama-l2-supercat-256", 256) for number in range(1, len(SAID) + 1)
    ]


async def test_a_question_sharing_no_word_finds_the_message_by_meaning(memory: Memory) -> None:
    hits = await memory.recall.search(G, QUESTION)
    assert hits and hits[0].text == "my puppy chewed my shoes again"
    # Nothing said is about it: the nearest messages are noise, and not recalled.
    assert await memory.recall.search(G, "what is the capital of mongolia?") == []
    # Words still count: a question that names what was said finds it first.
    words = await memory.recall.search(G, "which train was delayed?")
    assert words[0].text == "the train to Lisbon was delayed"


async def test_with_local_embeddings_off_recall_is_by_words_only(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    async for opened in _opened(_settings(tmp_path, local_embeddings=False), db_pool):
        assert await db_pool.fetchval("SELECT count(*) FROM message_embeddings") == 0
        assert await opened.recall.search(G, QUESTION) == []


async def test_a_stuck_vector_lookup_never_holds_the_words_back(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    async with db_pool.acquire() as blocker, blocker.transaction():
        # Another session holds the vectors: the nearest-in-meaning query waits on its lock.
        await blocker.execute("LOCK TABLE message_embeddings IN ACCESS EXCLUSIVE MODE")
        words = await memory.recall.search(G, "which train was delayed?", semantic_wait=0.5)
    assert [hit.text for hit in words][:1] == ["the train to Lisbon was delayed"]


# Bob calls Sam by name all the time; what Sam said about her dog never names her.
NAMED_SAID = [
    (BOB, "Sam, that is a lovely picture!"),
    (BOB, "thanks Sam, how are you doing?"),
    (BOB, "Sam, you look great in that photo"),
    (SAM, "my puppy chewed my shoes again"),
    (BOB, "good night Sam, talk soon"),
]


async def test_a_named_member_is_asked_about_by_meaning_not_by_her_name(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """The lookup by meaning reads the question without the names it holds: "Sam" would
    otherwise make every line saying "Sam" nearer than the one about her dog (issue 43)."""
    await upsert_members(db_pool, [Member(G, SAM, username="Sam"), Member(G, BOB, username="Bob")])
    async with open_memory(
        _settings(tmp_path), clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as memory:
        for number, (author, text) in enumerate(NAMED_SAID, start=1):
            at = NOW - timedelta(minutes=30 - number)
            assert memory.writer.submit(
                chat_message(number, text, guild_id=G, author_id=author, created_at=at)
            )
        await memory.writer.flush()
        await memory.embeddings.settled()
        hits = await memory.recall.search(G, "does Sam have a pet?", limit=1)
    assert [hit.text for hit in hits] == ["my puppy chewed my shoes again"]


async def test_an_edited_message_is_found_by_its_new_meaning(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    """The writer's edits are embedded again as they are stored (by their ids, as new lines
    are), not when some later look through the guild happens on them."""
    edited = chat_message(
        3, "we adopted a kitten from the shelter", guild_id=G, author_id=SAM, created_at=NOW
    )
    assert memory.writer.submit_edit(edited)
    await memory.writer.flush()
    await memory.embeddings.settled()
    current = await db_pool.fetchval(
        "SELECT e.content_md5 = md5(m.content) FROM message_embeddings e"
        " JOIN messages m USING (guild_id, message_id) WHERE m.message_id = 3"
    )
    assert current is True
    hits = await memory.recall.search(G, "does she have a cat?")
    assert hits and hits[0].text == "we adopted a kitten from the shelter"
