"""Edits, deletes, backfill positions and guild rows, on the real schema."""

from __future__ import annotations

from datetime import UTC, date, datetime

import asyncpg

from db.guilds import ensure_guild, get_settings, get_timezone, set_timezone
from db.messages import apply_edits, get_message, insert_messages, last_message_ids, mark_deleted
from memory.core.models import ChatMessage
from tests.support import chat_message

NOON = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _message(message_id: int, content: str = "hi", channel_id: int = 2) -> ChatMessage:
    return chat_message(message_id, content, channel_id=channel_id, mention_ids=(7,))


async def _summary_day(db_pool: asyncpg.Pool, day: date) -> None:
    await db_pool.execute(
        "INSERT INTO summary_days (guild_id, day, message_count) VALUES (1, $1, 1)", day
    )


async def test_edit_updates_text_and_marks_that_day_stale(db_pool: asyncpg.Pool) -> None:
    await insert_messages(db_pool, [_message(1)])
    await _summary_day(db_pool, date(2026, 11, 1))
    await _summary_day(db_pool, date(2026, 10, 31))
    edited_at = datetime(2026, 11, 3, tzinfo=UTC)
    new = ChatMessage(1, 1, 2, 3, "hi again", NOON, mention_ids=(), edited_at=edited_at)
    assert await apply_edits(db_pool, [new]) == (1, 0)
    stored = await _stored(db_pool, 1)
    assert stored.content == "hi again" and stored.edited_at == edited_at
    assert stored.mention_ids == ()
    rows = await db_pool.fetch("SELECT day, stale FROM summary_days ORDER BY day")
    assert [r["stale"] for r in rows] == [False, True]
    # same text again (e.g. Discord resolving a link preview): nothing changes
    assert await apply_edits(db_pool, [new]) == (0, 0)


async def test_edit_of_a_message_never_stored_inserts_it(db_pool: asyncpg.Pool) -> None:
    assert await apply_edits(db_pool, [_message(5, "seen only as an edit")]) == (0, 1)
    assert (await _stored(db_pool, 5)).content == "seen only as an edit"


async def test_delete_blanks_content_once(db_pool: asyncpg.Pool) -> None:
    await insert_messages(db_pool, [_message(1, "private words")])
    await _summary_day(db_pool, date(2026, 11, 1))
    assert await mark_deleted(db_pool, 2, [1]) == 0, "a delete reaches its own guild only"
    assert (await _stored(db_pool, 1)).content == "private words"
    assert await mark_deleted(db_pool, 1, [1, 99]) == 1
    stored = await _stored(db_pool, 1)
    assert stored.deleted and stored.content == ""
    assert await db_pool.fetchval("SELECT stale FROM summary_days") is True
    assert await mark_deleted(db_pool, 1, [1]) == 0
    assert await insert_messages(db_pool, [_message(1, "private words")]) == 0
    assert (await _stored(db_pool, 1)).content == ""


async def test_last_message_id_per_channel(db_pool: asyncpg.Pool) -> None:
    await insert_messages(db_pool, [_message(1), _message(5), _message(3, channel_id=4)])
    assert await last_message_ids(db_pool, 1, [2, 4, 6]) == {2: 5, 4: 3}
    assert await last_message_ids(db_pool, 2, [2, 4, 6]) == {}, "another guild's channels"


async def test_ensure_guild_keeps_an_admin_timezone(db_pool: asyncpg.Pool) -> None:
    assert await get_timezone(db_pool, 1, default="Asia/Tokyo") == "Asia/Tokyo"
    await ensure_guild(db_pool, 1, "First name", timezone="Europe/Berlin")
    assert await get_timezone(db_pool, 1) == "Europe/Berlin"
    await set_timezone(db_pool, 1, "America/New_York")
    await ensure_guild(db_pool, 1, "Renamed")
    await ensure_guild(db_pool, 1, None)
    row = await db_pool.fetchrow("SELECT name, timezone FROM guilds WHERE guild_id = 1")
    assert row is not None
    assert (row["name"], row["timezone"]) == ("Renamed", "America/New_York")
    assert await get_settings(db_pool, 1) == {}


async def _stored(pool: asyncpg.Pool, message_id: int) -> ChatMessage:
    message = await get_message(pool, message_id)
    assert message is not None, f"message {message_id} is not stored"
    return message
