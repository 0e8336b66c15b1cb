"""A small guild's nearest messages, in a database shared with a larger guild: the HNSW index
holds every guild's vectors, and pgvector ends a filtered walk after `hnsw.max_scan_tuples`
tuples of any guild, nearest first. A small guild whose messages are farther from a question
than a large guild's held a handful of them: its search found those, not its nearest. Here the
walk's cap is lowered, and the planner kept from sorting so few rows (a pool's session
settings), so a few hundred vectors show what 20,000 do beside a million."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator

import asyncpg
import pytest

from db.embeddings import ToEmbed, nearest_messages, store_embeddings
from db.messages import insert_messages
from tests.support import chat_message

MODEL = "local:test"
WIDTH = 256
LARGE, SMALL = 1, 2
# Tuples one walk may visit: far fewer than the large guild holds.
WALK_CAP = 60


def _toward_question(angle: float, side_axis: int) -> list[float]:
    """A unit vector `angle` radians from the question's axis (0), leaning to `side_axis`."""
    vector = [0.0] * WIDTH
    vector[0], vector[side_axis] = math.cos(angle), math.sin(angle)
    return vector


@pytest.fixture
async def capped_pool(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(
        database_dsn,
        min_size=1,
        max_size=2,
        server_settings={
            "hnsw.max_scan_tuples": str(WALK_CAP),
            # what a large table makes the planner choose: the walk, not a sort of the guild
            "enable_seqscan": "off",
            "enable_sort": "off",
        },
    )
    try:
        yield pool
    finally:
        await pool.close()


async def _fill(db_pool: asyncpg.Pool) -> dict[int, float]:
    """The large guild's 400 messages near the question, the small guild's 40 farther out;
    the small guild's angle of each of its messages."""
    angles: dict[int, float] = {}
    items: list[tuple[ToEmbed, list[float]]] = []
    messages = []
    for n in range(400):
        message_id, text = 10_000 + n, f"large guild line {n}"
        messages.append(chat_message(message_id, text, guild_id=LARGE, author_id=7))
        items.append((ToEmbed(message_id, LARGE, text), _toward_question(0.001 * n, 1 + n % 50)))
    for n in range(40):
        message_id, text = 20_000 + n, f"small guild line {n}"
        angles[message_id] = 0.5 + 0.02 * ((n * 7) % 40)  # ranked out of id order
        messages.append(chat_message(message_id, text, guild_id=SMALL, author_id=8))
        items.append(
            (ToEmbed(message_id, SMALL, text), _toward_question(angles[message_id], 60 + n))
        )
    async with db_pool.acquire() as connection:
        await insert_messages(connection, messages)
        await store_embeddings(connection, MODEL, items)
    return angles


async def test_a_small_guild_gets_its_own_nearest_beside_a_large_one(
    db_pool: asyncpg.Pool, capped_pool: asyncpg.Pool
) -> None:
    angles = await _fill(db_pool)
    question = _toward_question(0.0, 1)
    async with capped_pool.acquire() as connection:
        assert await connection.fetchval("SHOW hnsw.max_scan_tuples") == str(WALK_CAP)
    found = await nearest_messages(capped_pool, SMALL, question, model=MODEL, limit=10)
    nearest_ten = sorted(angles, key=angles.__getitem__)[:10]
    assert [match.message_id for match in found] == nearest_ten
    # The large guild's walk fills its list: its own messages, nearer than any of the small's.
    large = await nearest_messages(capped_pool, LARGE, question, model=MODEL, limit=10)
    assert len(large) == 10 and all(10_000 <= match.message_id < 20_000 for match in large)
