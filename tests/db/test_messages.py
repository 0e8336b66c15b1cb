"""Message inserts are idempotent and keep unicode, replies and mentions intact."""

from __future__ import annotations

import asyncpg

from db.messages import get_message, insert_messages
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
