"""Message embeddings for semantic recall (pgvector): the worker embeds new messages through the
configured provider (the real SDKs against a fake HTTP server), an edited message is embedded
again, a purge takes vectors along, and a model with the wrong vector size is refused clearly."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from db import embeddings as db_embeddings
from db.embeddings import messages_to_embed, nearest_messages
from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.recall import _index as index_module
from memory.wiring import Memory, open_memory
from tests.memory.embedding_support import concept_vector, embeddings_reply
from tests.memory.llm.fake_http import FakeHTTPServer, Reply
from tests.support import chat_message, eventually

G, SAM, BOB = 980, 98, 99
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)


@pytest.fixture
async def memory(
    db_pool: asyncpg.Pool, fake_http: FakeHTTPServer, tmp_path: Path
) -> AsyncIterator[Memory]:
    fake_http.responder = embeddings_reply
    settings = Settings(
        _env_file=None,
        log_dir=tmp_path / "logs",
        embedding_provider="openai",
        openai_base_url=fake_http.base_url + "/v1",
    )
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as opened:
        yield opened


def test_an_api_embedder_has_no_token_vectors_for_the_second_opinion(memory: Memory) -> None:
    """One vector a text is all an API returns: a search keeps its lanes' order."""
    embedder = memory.embeddings.embedder
    assert embedder is not None and not embedder.local
    assert embedder.token_table() is None


async def say(pool: asyncpg.Pool, author: int, text: str, message_id: int) -> None:
    at = NOW - timedelta(hours=1)
    message = chat_message(message_id, text, guild_id=G, author_id=author, created_at=at)
    await insert_messages(pool, [message])


async def embedded(pool: asyncpg.Pool) -> dict[int, str]:
    rows = await pool.fetch("SELECT message_id, model FROM message_embeddings")
    return {row["message_id"]: row["model"] for row in rows}


async def test_the_worker_embeds_new_messages_and_finds_them_by_meaning(
    memory: Memory, db_pool: asyncpg.Pool, fake_http: FakeHTTPServer
) -> None:
    await say(db_pool, SAM, "Bouldering every Tuesday at Klimmhal", 1)
    await say(db_pool, BOB, "we had ramen tonight", 2)
    other = chat_message(3, "climbing at the crag", guild_id=G + 1, author_id=SAM, created_at=NOW)
    await insert_messages(db_pool, [other])  # another guild: never in this one's results
    assert await memory.worker.sweep() >= 2  # each guild's embedding job (and the day's close)
    memory.worker.start()
    await eventually(lambda: _count(db_pool, 3), timeout=30)
    assert set((await embedded(db_pool)).values()) == {"openai:nomic-embed-text"}
    sent = [r.body for r in fake_http.requests if r.path == "/v1/embeddings"]
    assert {body["model"] for body in sent} == {"nomic-embed-text"}
    inputs = sorted(text for body in sent for text in body["input"])
    assert inputs == [
        "Bouldering every Tuesday at Klimmhal",
        "climbing at the crag",
        "we had ramen tonight",
    ]

    events = memory.telemetry.recent("embed")
    assert sorted(e["count"] for e in events) == [1, 2]  # one request per guild's messages
    assert {e["outcome"] for e in events} == {"ok"}

    question = concept_vector("where does sam go climbing?")  # no word in common
    model = "openai:nomic-embed-text"
    nearest = await nearest_messages(db_pool, G, question, model=model, limit=1)
    assert [m.message_id for m in nearest] == [1]
    mine = await nearest_messages(db_pool, G, question, model=model, limit=5, user_id=BOB)
    assert [m.message_id for m in mine] == [2]  # one member's recall: only their messages

    # Recall ranks by meaning too: no word of the question is in the answer.
    hits = await memory.recall.search(G, "where does sam go climbing?")
    assert hits[0].text == "Bouldering every Tuesday at Klimmhal"
    # The nearest of what is left is the next line said in the channel: one exchange, each
    # line once (this guild has nothing else).
    assert [line.text for hit in hits for line in (hit, *hit.context)] == [
        "Bouldering every Tuesday at Klimmhal",
        "we had ramen tonight",
    ]
    fake_http.responder = lambda request: Reply(status=503, body={"error": {"message": "down"}})
    words = await memory.recall.search(G, "ramen tonight?")  # provider down: full text still
    assert [hit.text for hit in words] == ["we had ramen tonight"]


async def test_an_edited_message_is_embedded_again_and_a_purge_takes_its_vector(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    await say(db_pool, SAM, "Bouldering every Tuesday", 1)
    assert await memory.embeddings.look_through(G) is None  # all done in one go
    assert await messages_to_embed(db_pool, G, 10) == []
    await db_pool.execute("UPDATE messages SET content = 'ramen instead' WHERE message_id = 1")
    assert [m.content for m in await messages_to_embed(db_pool, G, 10)] == ["ramen instead"]
    await memory.embeddings.look_through(G)
    food = concept_vector("dinner")
    model = "openai:nomic-embed-text"
    assert [
        m.message_id for m in await nearest_messages(db_pool, G, food, model=model, limit=1)
    ] == [1]

    subject = await memory.privacy.subject_or_id(G, str(SAM))
    await memory.privacy.purge(subject)
    assert await embedded(db_pool) == {}


async def test_a_model_with_the_wrong_vector_size_is_refused_with_the_reason(
    memory: Memory, db_pool: asyncpg.Pool, fake_http: FakeHTTPServer
) -> None:
    await say(db_pool, SAM, "Bouldering every Tuesday", 1)
    small = {
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": [0.1] * 384}],
    }
    fake_http.queue(Reply(body=small | {"model": "all-minilm", "usage": _usage()}))
    with pytest.raises(Exception, match="384-dimensional vectors; memorybot stores 768"):
        await memory.embeddings.look_through(G)
    assert await embedded(db_pool) == {}
    error = memory.telemetry.recent("embed")[-1]
    assert error["outcome"] == "error" and "384" in error["error"]


async def test_gemini_embeddings_ask_for_the_stored_size_and_the_task(
    db_pool: asyncpg.Pool, fake_http: FakeHTTPServer, tmp_path: Path
) -> None:
    fake_http.responder = embeddings_reply
    settings = Settings(
        _env_file=None,
        log_dir=tmp_path / "logs",
        gemini_api_key="test-key",
        gemini_base_url=fake_http.base_url,
        embedding_provider="gemini",
    )
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as memory:
        await say(db_pool, SAM, "Bouldering every Tuesday", 1)
        await memory.embeddings.look_through(G)
    assert await embedded(db_pool) == {1: "gemini:gemini-embedding-001"}
    request = next(r for r in fake_http.requests if "batchEmbedContents" in r.path)
    assert "gemini-embedding-001" in request.path
    first: dict[str, Any] = request.body["requests"][0]
    assert first["taskType"] == "RETRIEVAL_DOCUMENT"
    assert first["outputDimensionality"] == 768


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 3, "total_tokens": 3}


async def _count(pool: asyncpg.Pool, expected: int) -> bool:
    return len(await embedded(pool)) >= expected


async def test_messages_of_the_same_words_come_newest_first_every_time(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    """Equally near messages (a line said again and again) are listed newest first, so one
    question finds the same ones on every run: the index lists them in any order."""
    for message_id in range(1, 9):
        await say(db_pool, SAM, "not gonna lie, I napped", message_id)
    await memory.embeddings.look_through(G)
    question = concept_vector("a nap")
    model = "openai:nomic-embed-text"
    nearest = await nearest_messages(db_pool, G, question, model=model, limit=3)
    assert [m.message_id for m in nearest] == [8, 7, 6]
    mine = await nearest_messages(db_pool, G, question, model=model, limit=3, user_id=SAM)
    assert [m.message_id for m in mine] == [8, 7, 6]


async def test_a_question_naming_a_day_finds_what_was_said_that_day_by_meaning(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    """ "What was for dinner on 3 October?" shares no word with "ramen at the new place", and the
    guild's nearest in meaning are the newer pizza nights: the lookup among what was said in
    the time the question names still finds it."""
    said = datetime(2026, 10, 3, 19, tzinfo=UTC)
    messages = [
        chat_message(1, "ramen at the new place", guild_id=G, author_id=SAM, created_at=said)
    ]
    for number in range(30):  # after the week a question about that day reaches
        at = datetime(2026, 10, 20, 19, tzinfo=UTC) + timedelta(hours=number)
        messages.append(
            chat_message(10 + number, "pizza night again", guild_id=G, author_id=BOB, created_at=at)
        )
    messages.append(chat_message(50, "booked the crag", guild_id=G, author_id=BOB, created_at=said))
    await insert_messages(db_pool, messages)
    await memory.embeddings.look_through(G)

    model, food = "openai:nomic-embed-text", concept_vector("dinner")
    october = (datetime(2026, 10, 2, tzinfo=UTC), datetime(2026, 10, 11, tzinfo=UTC))
    then = await nearest_messages(db_pool, G, food, model=model, limit=5, period=october)
    assert [m.message_id for m in then] == [1, 50]  # that time's own, nearest first
    theirs = await nearest_messages(
        db_pool, G, food, model=model, limit=5, period=october, user_id=BOB
    )
    assert [m.message_id for m in theirs] == [50]
    anytime = await nearest_messages(db_pool, G, food, model=model, limit=20)
    assert 1 not in {m.message_id for m in anytime}  # the guild's nearest: the pizza nights

    hits = await memory.recall.search(G, "what was for dinner on 3 October?")
    assert "ramen at the new place" in [hit.text for hit in hits]


async def _twenty_lines_read_in_steps(
    pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> list[int | None]:
    """Twenty unembedded lines, embedded three a batch and two batches a step; the list fills
    with the message each read of unembedded messages started from (None: the newest)."""
    monkeypatch.setattr(index_module, "BATCH", 3)
    monkeypatch.setattr(index_module, "BATCHES_PER_JOB", 2)
    at = NOW - timedelta(hours=1)
    lines = [
        chat_message(100 + n, f"line {n}", guild_id=G, author_id=SAM, created_at=at)
        for n in range(20)
    ]
    await insert_messages(pool, lines)
    starts: list[int | None] = []
    read = db_embeddings.messages_to_embed

    async def recorded(db: Any, guild_id: int, limit: int, *, before: int | None = None) -> Any:
        starts.append(before)
        return await read(db, guild_id, limit, before=before)

    monkeypatch.setattr(index_module, "messages_to_embed", recorded)
    return starts


def _went_on_from_one_another(starts: list[int | None]) -> None:
    later = [start for start in starts[1:] if start is not None]
    assert starts[0] is None and len(later) == len(starts) - 1, starts
    assert later == sorted(later, reverse=True), starts


async def test_an_import_is_embedded_in_one_pass_from_the_newest_to_the_oldest(
    memory: Memory, db_pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import's messages are embedded a job's worth of batches at a time; each starting from
    the newest again read past everything embedded before it once more (quadratic in the
    import's size). Each goes on from the last."""
    starts = await _twenty_lines_read_in_steps(db_pool, monkeypatch)
    assert await memory.embeddings.embed_guild(G) == 20
    _went_on_from_one_another(starts)
    assert len(starts) == 7  # 20 by 3s


async def test_the_workers_embed_jobs_go_on_from_where_the_last_one_stopped(
    memory: Memory, db_pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A provider's embed job stops at its cap and queues the next; each started from the
    newest again, reading past everything embedded before it once more."""
    starts = await _twenty_lines_read_in_steps(db_pool, monkeypatch)
    assert await memory.worker.sweep() >= 1
    memory.worker.start()
    await eventually(lambda: _count(db_pool, 20), timeout=30)
    _went_on_from_one_another(starts)
