"""Messages per local day from the quarter-hour counts (migration V025) match counting the
messages themselves, in time zones half and three quarters of an hour off UTC, through
inserts, repeated inserts, flagged deletes, purges and retention."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import asyncpg

from db.activity import messages_per_day
from db.messages import insert_messages, mark_deleted
from memory.core.models import ChatMessage
from tests.support import chat_message

G, OTHER = 970, 971
START = datetime(2026, 11, 1, tzinfo=UTC)
END = datetime(2026, 11, 6, tzinfo=UTC)


def _history(guild_id: int) -> list[ChatMessage]:
    """A message every 7 minutes over four days: every bucket edge and midnight is crossed."""
    return [
        chat_message(
            guild_id * 10_000 + n,
            f"message {n}",
            guild_id=guild_id,
            author_id=1 + n % 3,
            created_at=START + timedelta(hours=6) + timedelta(minutes=7 * n),
        )
        for n in range(4 * 24 * 60 // 7)
    ]


async def _counted(pool: asyncpg.Pool, guild_id: int, timezone: str) -> dict[date, int]:
    """The slow way: the messages themselves."""
    rows = await pool.fetch(
        "SELECT (created_at AT TIME ZONE $2)::date AS day, count(*) AS n FROM messages"
        " WHERE guild_id = $1 AND created_at >= $3 AND created_at < $4 GROUP BY 1",
        guild_id,
        timezone,
        START,
        END,
    )
    return {row["day"]: row["n"] for row in rows}


async def _same(pool: asyncpg.Pool, guild_id: int) -> None:
    for timezone in ("UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns"):
        expected = await _counted(pool, guild_id, timezone)
        assert await messages_per_day(pool, guild_id, START, END, timezone) == expected, timezone


async def test_counts_follow_inserts_and_deletes(db_pool: asyncpg.Pool) -> None:
    history = _history(G)
    assert await insert_messages(db_pool, history[:400]) == 400
    assert await insert_messages(db_pool, history) == len(history) - 400  # ids already stored
    await insert_messages(db_pool, _history(OTHER)[:50])
    await _same(db_pool, G)
    assert sum((await messages_per_day(db_pool, G, START, END, "UTC")).values()) == len(history)

    await mark_deleted(
        db_pool, history[0].guild_id, [m.message_id for m in history[:30]]
    )  # a flag: still a row
    await _same(db_pool, G)
    await db_pool.execute("DELETE FROM messages WHERE guild_id = $1 AND author_id = 2", G)
    await db_pool.execute("DELETE FROM messages WHERE created_at < $1", START + timedelta(days=2))
    await _same(db_pool, G)
    await _same(db_pool, OTHER)

    await db_pool.execute("DELETE FROM messages WHERE guild_id = $1", G)
    assert await messages_per_day(db_pool, G, START, END, "UTC") == {}
    left = await db_pool.fetchval("SELECT count(*) FROM message_counts WHERE guild_id = $1", G)
    assert left == 0  # no zero rows are kept
