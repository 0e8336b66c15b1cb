"""Message inserts are idempotent and keep unicode, replies and mentions intact; only the
tables an import fills are sampled for the planner."""

from __future__ import annotations

import asyncpg
import pytest

from db.messages import get_message, insert_messages, refresh_statistics
from tests.support import chat_message

_message = chat_message


async def test_insert_twice_adds_nothing(db_pool: asyncpg.Pool) -> None:
    batch = [_message(1), _message(2, "Привет 👋 </content>", reply_to_id=1, mention_ids=(7, 8))]
    assert await insert_messages(db_pool, batch) == 2
    assert await insert_messages(db_pool, batch) == 0
    stored = await get_message(db_pool, 2)
    assert stored is not None
    assert stored.content == "Привет 👋 </content>"
    assert stored.reply_to_id == 1 and stored.mention_ids == (7, 8)


async def test_only_the_tables_an_import_fills_are_sampled(db_pool: asyncpg.Pool) -> None:
    """A table name is an identifier in the statement, never a parameter: anything else is
    refused before it reaches the database."""
    with pytest.raises(ValueError, match="not a table an import fills: members; DROP"):
        await refresh_statistics(db_pool, ["messages", "members; DROP TABLE messages"])
    await insert_messages(db_pool, [_message(1), _message(2)])
    await refresh_statistics(db_pool)
    tuples = await db_pool.fetchval("SELECT reltuples FROM pg_class WHERE relname = 'messages'")
    assert tuples == 2
