"""An episode's messages are read from its channel, by id, alone. Read by time, each read
combined a bitmap of its channel's whole history with one of everything its guild said while
the episode lasted: "what did we talk about yesterday?" did that for each of the day's five
episodes in the reply's path, and a long-lived #general's history grows without end. Cutting a
channel into episodes read every guild's messages after its start, in time order, until the
channel's page was full. A guild's newest episodes are read from its newest on, whatever
plan PostgreSQL keeps for the listing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from db.episode_reads import LISTING_NEWEST, listing
from db.episodes import (
    EPISODES_MESSAGES,
    MESSAGES_FROM,
    episode_messages,
    episodes_messages,
    messages_from,
)
from db.messages import insert_messages
from tests.plans import entries_examined, looked_at, prepared_plan, summed
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
    plan = await _plan(db_pool, EPISODES_MESSAGES, [OURS], [first], [last], 1)
    assert summed(plan, entries_examined) <= 2 * 30, plan  # its lines, in the index and read


async def test_the_asked_episodes_are_read_together_each_from_its_channel(
    db_pool: asyncpg.Pool,
) -> None:
    """The five episodes of "what did we talk about yesterday?" in one statement: each its
    own lines, in the order asked, and nothing else looked at."""
    ours = await _busy_hours(db_pool)
    beside = [row["message_id"] for row in await messages_from(db_pool, 1, OURS + 1, None, 60)]
    asked = [
        {"channel_id": OURS + 1, "first_message_id": beside[5], "last_message_id": beside[24]},
        {"channel_id": OURS, "first_message_id": ours[10], "last_message_id": ours[39]},
        {"channel_id": OURS, "first_message_id": ours[50], "last_message_id": ours[54]},
    ]
    read = await episodes_messages(db_pool, 1, asked)
    assert [[row["message_id"] for row in rows] for rows in read] == [
        beside[5:25],
        ours[10:40],
        ours[50:55],
    ]
    assert await episodes_messages(db_pool, 2, asked) == [[], [], []]  # another guild's ids
    assert await episodes_messages(db_pool, 1, []) == []
    arguments = [[e[key] for e in asked] for key in asked[0]]
    plan = await _plan(db_pool, EPISODES_MESSAGES, *arguments, 1)
    assert summed(plan, entries_examined) <= 2 * (20 + 30 + 5), plan


async def test_cutting_reads_a_page_of_its_channel_alone(db_pool: asyncpg.Pool) -> None:
    ours = await _busy_hours(db_pool)
    start = (_said_at(ours[100]), ours[100])
    page = await messages_from(db_pool, 1, OURS, start, 50)
    assert [row["message_id"] for row in page] == ours[100:150]
    assert [row["message_id"] for row in await messages_from(db_pool, 1, OURS, None, 5)] == ours[:5]
    plan = await _plan(db_pool, MESSAGES_FROM, OURS, ours[100], 50, 1)
    # At most its channel from the start on, in the index and read.
    assert summed(plan, entries_examined) <= 2 * len(ours[100:]), plan


async def _many_episodes(db_pool: asyncpg.Pool, count: int) -> None:
    """`count` closed episodes of guild 1 over its channels, ten minutes apart, and as many of
    guild 2's, sampled as autovacuum keeps a live table."""
    await db_pool.execute(
        """
        INSERT INTO episodes (guild_id, channel_id, first_message_id, last_message_id,
                              started_at, ended_at, message_count, state)
        SELECT 1 + n % 2, 100 + n % 20, n * 10, n * 10 + 5,
               $1::timestamptz + n * interval '10 minutes',
               $1::timestamptz + n * interval '10 minutes' + interval '5 minutes',
               3 + n % 7, 'closed'
        FROM generate_series(1, $2::int) AS n
        """,
        START,
        2 * count,
    )
    await db_pool.execute("ANALYZE episodes")


@pytest.mark.parametrize("mode", ["force_custom_plan", "force_generic_plan"])
async def test_a_guilds_newest_episodes_are_read_from_its_newest_on(
    db_pool: asyncpg.Pool, mode: str
) -> None:
    """`/memory episodes` and the console's listing: a long-lived guild's newest page is read
    through its (guild_id, ended_at) index and stops at the page, whatever plan PostgreSQL
    keeps for the prepared statement, not by sorting every episode the guild ever had; a
    stretch's biggest are sorted within that stretch."""
    await _many_episodes(db_pool, 3000)
    newest = await listing(db_pool, 1, limit=20)
    ended = [row["ended_at"] for row in newest]
    assert len(newest) == 20 and ended == sorted(ended, reverse=True)
    assert {row["guild_id"] for row in newest} == {1}
    plan = await prepared_plan(db_pool, LISTING_NEWEST, "1, NULL, NULL, NULL, NULL, 20", mode)
    assert summed(plan, looked_at) <= 5 * 20, plan
    week = (START + timedelta(days=7), START + timedelta(days=14))
    biggest = await listing(db_pool, 1, start=week[0], end=week[1], limit=5, biggest=True)
    assert [row["message_count"] for row in biggest] == [9] * 5
    assert all(week[0] <= row["ended_at"] and row["started_at"] < week[1] for row in biggest)
