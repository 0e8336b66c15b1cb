"""An episode's messages are read from its channel, by id, alone. Read by time, each read
combined a bitmap of its channel's whole history with one of everything its guild said while
the episode lasted: "what did we talk about yesterday?" did that for each of the day's five
episodes in the reply's path, and a long-lived #general's history grows without end. Cutting a
channel into episodes read every guild's messages after its start, in time order, until the
channel's page was full."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from db.episodes import EPISODE_MESSAGES, MESSAGES_FROM, episode_messages, messages_from
from db.messages import insert_messages
from tests.plans import entries_examined, summed
from tests.support import chat_message

START = datetime(2026, 3, 2, 9, tzinfo=UTC)
CHANNELS = 20
LINES = 4000  # of guild 1, over its CHANNELS channels; as many again in guild 2, same hours
OURS = 105  # guild 1's channel the episode is in


async def _busy_hours(db_pool: asyncpg.Pool) -> list[int]:
    """Two guilds talking in many channels at the same time (ids grow with time, as Discord's
    do); the ids of channel OURS' messages, oldest first."""
    said = [
        chat_message(
            1_000_000 + n,
            f"line {n}",
            guild_id=1 + n % 2,
            channel_id=(100 if n % 2 == 0 else 200) + (n // 2) % CHANNELS,
            created_at=START + timedelta(seconds=5 * n),
        )
        for n in range(2 * LINES)
    ]
    await insert_messages(db_pool, said)
    await db_pool.execute("ANALYZE messages")  # as autovacuum keeps a live table
    return [m.message_id for m in said if m.channel_id == OURS]


def _said_at(message_id: int) -> datetime:
    return START + timedelta(seconds=5 * (message_id - 1_000_000))


async def _plan(db_pool: asyncpg.Pool, sql: str, *args: object) -> dict[str, Any]:
    [plan] = await db_pool.fetchval("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, *args)
    result: dict[str, Any] = plan["Plan"]
    return result


async def test_an_episodes_messages_are_read_from_its_channel_alone(
    db_pool: asyncpg.Pool,
) -> None:
    ours = await _busy_hours(db_pool)
    first, last = ours[10], ours[39]  # thirty lines, over an hour and a half of busy chat
    episode = {"channel_id": OURS, "first_message_id": first, "last_message_id": last}
    read = await episode_messages(db_pool, {**episode, "guild_id": 1})
    assert [row["message_id"] for row in read] == ours[10:40]
    plan = await _plan(db_pool, EPISODE_MESSAGES, OURS, first, last, 1)
    assert summed(plan, entries_examined) <= 2 * 30, plan  # its lines, in the index and read


async def test_cutting_reads_a_page_of_its_channel_alone(db_pool: asyncpg.Pool) -> None:
    ours = await _busy_hours(db_pool)
    start = (_said_at(ours[100]), ours[100])
    page = await messages_from(db_pool, 1, OURS, start, 50)
    assert [row["message_id"] for row in page] == ours[100:150]
    assert [row["message_id"] for row in await messages_from(db_pool, 1, OURS, None, 5)] == ours[:5]
    plan = await _plan(db_pool, MESSAGES_FROM, OURS, ours[100], 50, 1)
    # At most its channel from the start on, in the index and read.
    assert summed(plan, entries_examined) <= 2 * len(ours[100:]), plan
