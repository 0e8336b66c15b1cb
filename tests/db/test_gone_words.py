"""A deleted message, or its author's edit, takes its words out of what was derived from it
(migration V016): its embedding, and the learned facts it was the only source of; a fact with
other sources only loses it from its provenance. A purge's scrub of a mention in someone else's
message (not their edit) unlearns nothing."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

import asyncpg

from db.learned import all_facts
from db.messages import apply_edits, insert_messages, mark_deleted
from tests.support import chat_message

G, ALICE, BOB = 960, 96, 97
AT = datetime(2026, 11, 3, 12, tzinfo=UTC)


async def _learn(pool: asyncpg.Pool, statement: str, message_ids: list[int]) -> None:
    await pool.execute(
        "INSERT INTO learned_facts (guild_id, user_id, subject, statement, said_by, message_ids,"
        " first_seen, last_seen) VALUES ($1, $2, $3, $4, $2, $5, $6, $6)",
        G,
        ALICE,
        statement[:10],
        statement,
        message_ids,
        date(2026, 11, 3),
    )


async def _statements(pool: asyncpg.Pool) -> dict[str, list[int]]:
    return {fact.statement: fact.message_ids for fact in await all_facts(pool, G, ALICE)}


async def _embedded(pool: asyncpg.Pool, message_id: int) -> bool | None:
    """Whether the message has an embedding (None: no pgvector here)."""
    if await pool.fetchval("SELECT to_regclass('message_embeddings')") is None:
        return None
    return bool(
        await pool.fetchval("SELECT 1 FROM message_embeddings WHERE message_id = $1", message_id)
    )


async def _embed(pool: asyncpg.Pool, message_id: int) -> None:
    if await pool.fetchval("SELECT to_regclass('message_embeddings')") is not None:
        vector = "[" + ",".join(["0.1"] * 768) + "]"
        await pool.execute(
            "INSERT INTO message_embeddings (message_id, guild_id, model, content_md5, embedding)"
            " SELECT message_id, guild_id, 'test', md5(content), $2::halfvec FROM messages"
            " WHERE message_id = $1",
            message_id,
            vector,
        )


async def test_deleting_a_message_unlearns_what_only_it_said(db_pool: asyncpg.Pool) -> None:
    said = chat_message(1, "I moved to Lisbon", guild_id=G, author_id=ALICE, created_at=AT)
    again = chat_message(2, "Lisbon is home now", guild_id=G, author_id=ALICE, created_at=AT)
    await insert_messages(db_pool, [said, again])
    await _learn(db_pool, "alice lives in Lisbon", [1, 2])
    await _learn(db_pool, "alice moved last month", [1])
    await _embed(db_pool, 1)

    assert await mark_deleted(db_pool, G, [1]) == 1

    assert await _statements(db_pool) == {"alice lives in Lisbon": [2]}
    assert await _embedded(db_pool, 1) in (False, None)  # None: no pgvector here


async def test_an_edit_by_its_author_unlearns_the_old_words(db_pool: asyncpg.Pool) -> None:
    said = chat_message(3, "the safe code is 7319", guild_id=G, author_id=ALICE, created_at=AT)
    await insert_messages(db_pool, [said])
    await _learn(db_pool, "alice's safe code is 7319", [3])
    await _embed(db_pool, 3)

    edited = replace(said, content="never mind", edited_at=AT.replace(minute=5))
    assert await apply_edits(db_pool, [edited]) == (1, 0)

    assert await _statements(db_pool) == {}
    assert await _embedded(db_pool, 3) in (False, None)


async def test_a_purge_scrubbing_a_mention_unlearns_nothing(db_pool: asyncpg.Pool) -> None:
    said = chat_message(
        4, f"I climb with <@{BOB}> on sundays", guild_id=G, author_id=ALICE, created_at=AT
    )
    await insert_messages(db_pool, [said])
    await _learn(db_pool, "alice climbs on sundays", [4])
    await db_pool.execute(
        "UPDATE messages SET content = replace(content, $2, '@someone') WHERE message_id = $1",
        4,
        f"<@{BOB}>",
    )
    assert await _statements(db_pool) == {"alice climbs on sundays": [4]}
