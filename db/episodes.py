"""Episode rows: cutting a channel again from an episode's start, summaries, purge.

Segmentation itself is memory/episodes (pure Python); this module reads the messages it needs
and replaces the episodes of a stretch in one transaction, under a per-channel advisory lock,
so two processes cutting one channel never interleave.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from db.rows import execute_counted, fetch_column
from db.types import Connection, Executor

# Advisory lock namespace (first key) of a channel's segmentation.
LOCK_NAMESPACE = 18


@dataclass(frozen=True, slots=True)
class NewEpisode:
    """One cut segment, as the store keeps it."""

    first_message_id: int
    last_message_id: int
    started_at: datetime
    ended_at: datetime
    message_count: int
    member_ids: list[int]
    closed: bool


async def lock_channel(connection: Connection, channel_id: int) -> None:
    """Hold the channel's segmentation lock until the transaction ends."""
    await connection.execute(
        "SELECT pg_advisory_xact_lock($1, hashtext($2::bigint::text))",
        LOCK_NAMESPACE,
        channel_id,
    )


async def anchor(
    db: Executor, guild_id: int, channel_id: int, since: datetime | None
) -> tuple[datetime, int] | None:
    """(start, first message id) of the episode a re-cut begins with: the latest one that
    started at or before `since` (None: the channel's latest); None when there is none."""
    row = await db.fetchrow(
        """
        SELECT started_at, first_message_id FROM episodes
        WHERE guild_id = $3 AND channel_id = $1 AND ($2::timestamptz IS NULL OR started_at <= $2)
        ORDER BY started_at DESC, first_message_id DESC LIMIT 1
        """,
        channel_id,
        since,
        guild_id,
    )
    return (row["started_at"], row["first_message_id"]) if row else None


MESSAGES_FROM = """
    SELECT message_id, created_at, author_id, content FROM messages
    WHERE channel_id = $1 AND message_id >= $2 AND guild_id = $4 AND NOT deleted
    ORDER BY message_id LIMIT $3
"""


async def messages_from(
    db: Executor, guild_id: int, channel_id: int, start: tuple[datetime, int] | None, limit: int
) -> list[asyncpg.Record]:
    """The channel's live messages from `start` on (inclusive), oldest first.

    Read through the channel's (channel_id, message_id) index by id: ids grow with time (they
    are snowflakes), so "from the start's message on" is "ids from its id on". By time, the
    read took the (created_at) index, shared by every guild, and looked at every message any
    channel of any guild said after the start until this channel's page was full."""
    return await db.fetch(
        MESSAGES_FROM,
        channel_id,
        start[1] if start else 0,
        limit,
        guild_id,
    )


async def replace_stretch(
    connection: Connection,
    guild_id: int,
    channel_id: int,
    start: tuple[datetime, int] | None,
    until: datetime,
    episodes: Sequence[NewEpisode],
) -> int:
    """Make the channel's episodes that start in [start, until] be `episodes`: rows that kept
    their first message keep their summary (due again if their messages changed), the others
    go. Call inside a transaction holding `lock_channel`. How many rows changed."""
    # One statement: the rows deleted (first message not among `episodes`) and the rows put
    # (first message among them) are disjoint, so neither part needs to see the other's work.
    changed = await connection.fetchval(
        """
        WITH gone AS (
            DELETE FROM episodes
            WHERE guild_id = $1 AND channel_id = $2
              AND ($10::timestamptz IS NULL
                   OR (started_at, first_message_id) >= ($10, $11::bigint))
              AND started_at <= $12 AND NOT first_message_id = ANY($3::bigint[])
            RETURNING 1
        ), put AS (
            INSERT INTO episodes AS e (guild_id, channel_id, first_message_id, last_message_id,
                                       started_at, ended_at, message_count, member_ids, state)
            SELECT $1, $2, t.f, t.l, t.s, t.e, t.n,
                   string_to_array(t.m, ',')::bigint[],
                   CASE WHEN t.c THEN 'closed' ELSE 'open' END
            FROM unnest($3::bigint[], $4::bigint[], $5::timestamptz[], $6::timestamptz[],
                        $7::int[], $8::text[], $9::bool[]) AS t(f, l, s, e, n, m, c)
            ON CONFLICT (guild_id, channel_id, first_message_id) DO UPDATE SET
                last_message_id = EXCLUDED.last_message_id,
                started_at = EXCLUDED.started_at,
                ended_at = EXCLUDED.ended_at,
                message_count = EXCLUDED.message_count,
                member_ids = EXCLUDED.member_ids,
                state = CASE WHEN EXCLUDED.state = 'open' THEN 'open'
                             WHEN e.state = 'stale' THEN 'stale' ELSE 'closed' END,
                updated_at = now()
            WHERE (e.last_message_id, e.message_count, e.state = 'open')
                  IS DISTINCT FROM (EXCLUDED.last_message_id, EXCLUDED.message_count,
                                    EXCLUDED.state = 'open')
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FROM put)
        """,
        guild_id,
        channel_id,
        [episode.first_message_id for episode in episodes],
        [episode.last_message_id for episode in episodes],
        [episode.started_at for episode in episodes],
        [episode.ended_at for episode in episodes],
        [episode.message_count for episode in episodes],
        [",".join(str(int(value)) for value in episode.member_ids) for episode in episodes],
        [episode.closed for episode in episodes],
        start[0] if start else None,
        start[1] if start else 0,
        until,
    )
    return int(changed)


async def close_quiet(
    db: Executor, now: datetime, silence_minutes: dict[int, int], default: int
) -> int:
    """Close open episodes whose channel has been silent longer than the guild's silence."""
    return await execute_counted(
        db,
        """
        UPDATE episodes e SET state = 'closed', updated_at = now()
        WHERE e.state = 'open'
          AND e.ended_at < $1::timestamptz - make_interval(mins => coalesce(
                (SELECT s.minutes FROM unnest($2::bigint[], $3::int[]) AS s(guild_id, minutes)
                 WHERE s.guild_id = e.guild_id), $4))
        """,
        now,
        list(silence_minutes),
        list(silence_minutes.values()),
        default,
    )


async def unsegmented_channels(
    db: Executor, since: datetime, limit: int
) -> list[tuple[int, int, datetime]]:
    """(guild, channel, oldest unsegmented message time) of channels with live messages since
    `since` that no episode covers yet (an import, a restart before segmentation ran)."""
    rows = await db.fetch(
        """
        SELECT m.guild_id, m.channel_id, min(m.created_at) AS oldest
        FROM messages m
        WHERE m.created_at >= $1 AND NOT m.deleted
          AND NOT EXISTS (SELECT 1 FROM episodes e
                          WHERE e.guild_id = m.guild_id AND e.channel_id = m.channel_id
                            AND m.created_at BETWEEN e.started_at AND e.ended_at)
        GROUP BY m.guild_id, m.channel_id
        ORDER BY oldest LIMIT $2
        """,
        since,
        limit,
    )
    return [(row["guild_id"], row["channel_id"], row["oldest"]) for row in rows]


async def guild_channels(db: Executor, guild_id: int) -> list[int]:
    return await fetch_column(
        db,
        "SELECT DISTINCT channel_id FROM messages WHERE guild_id = $1 ORDER BY channel_id",
        guild_id,
    )


async def guilds_due_summary(db: Executor, limit: int = 500) -> list[int]:
    return await fetch_column(
        db,
        """
        SELECT DISTINCT guild_id FROM episodes
        WHERE state = 'stale' OR (state = 'closed' AND summarized_count <> message_count)
        LIMIT $1
        """,
        limit,
    )


async def due_summary(
    db: Executor, guild_id: int, limit: int, *, upgrade: Sequence[int] = ()
) -> list[asyncpg.Record]:
    """Closed episodes of the guild whose summary is missing or stale, oldest first, and the
    closed ones among `upgrade` (ids) whose summary is only extractive."""
    return await db.fetch(
        """
        SELECT * FROM episodes
        WHERE guild_id = $1
          AND (state = 'stale' OR (state = 'closed' AND summarized_count <> message_count)
               OR (id = ANY($3::bigint[]) AND state = 'closed' AND provider = 'offline'))
        ORDER BY ended_at, id LIMIT $2
        """,
        guild_id,
        limit,
        list(upgrade),
    )


async def episode_messages(
    db: Executor, episode: asyncpg.Record | Mapping[str, Any]
) -> list[asyncpg.Record]:
    """An episode's live messages, oldest first (`episodes_messages` of one)."""
    return (await episodes_messages(db, int(episode["guild_id"]), [episode]))[0]


EPISODES_MESSAGES = """
    SELECT e.ord, m.message_id, m.created_at, m.author_id, m.content, m.reply_to_id
    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
         WITH ORDINALITY AS e(channel_id, first_id, last_id, ord)
    CROSS JOIN LATERAL (
        SELECT message_id, created_at, author_id, content, reply_to_id FROM messages
        WHERE channel_id = e.channel_id AND message_id >= e.first_id
          AND message_id <= e.last_id AND guild_id = $4 AND NOT deleted
    ) m
    ORDER BY e.ord, m.message_id
"""


async def episodes_messages(
    db: Executor, guild_id: int, episodes: Sequence[asyncpg.Record | Mapping[str, Any]]
) -> list[list[asyncpg.Record]]:
    """Each episode's live messages, oldest first, in one statement, in the episodes' order:
    its channel's from its first message's id to its last's, by the (channel_id, message_id)
    index (ids grow with time). By time, a read took the (created_at) index, shared by every
    guild, and looked at everything any channel said while the episode lasted. One statement
    for all: the five episodes a "what did we talk about yesterday?" lists took five reads,
    and five of the pool's connections beside the reply's search."""
    if not episodes:
        return []
    rows = await db.fetch(
        EPISODES_MESSAGES,
        [int(e["channel_id"]) for e in episodes],
        [int(e["first_message_id"]) for e in episodes],
        [int(e["last_message_id"]) for e in episodes],
        guild_id,
    )
    found: list[list[asyncpg.Record]] = [[] for _ in episodes]
    for row in rows:
        found[row["ord"] - 1].append(row)
    return found


async def save_summary(
    db: Executor,
    guild_id: int,
    episode_id: int,
    *,
    message_count: int,
    title: str,
    summary: str,
    open_loops: Sequence[str],
    provider: str,
    close: bool,
) -> bool:
    """Store a summary of the episode as it was when read (`message_count`); a closed or
    stale one becomes closed. False when the episode changed meanwhile (it is due again)."""
    status = await db.execute(
        """
        UPDATE episodes SET title = $2, summary = $3, open_loops = $4::text[],
               provider = $5, summarized_count = $6, updated_at = now(),
               state = CASE WHEN state = 'open' OR NOT $7 THEN state ELSE 'closed' END
        WHERE guild_id = $8 AND id = $1 AND message_count = $6
        """,
        episode_id,
        title,
        summary,
        list(open_loops),
        provider,
        message_count,
        close,
        guild_id,
    )
    return status.endswith(" 1")


async def forget_member(db: Executor, guild_id: int, user_id: int) -> dict[int, datetime]:
    """A purged or opted-out member: every episode they spoke in goes with its words; the
    channels to cut again from the earliest such episode (the caller does, once their
    messages are gone)."""
    rows = await db.fetch(
        """
        WITH gone AS (
            DELETE FROM episodes WHERE guild_id = $1 AND $2 = ANY(member_ids)
            RETURNING channel_id, started_at)
        SELECT channel_id, min(started_at) AS since FROM gone GROUP BY channel_id
        """,
        guild_id,
        user_id,
    )
    return {row["channel_id"]: row["since"] for row in rows}


async def guilds_with_open(db: Executor) -> list[int]:
    rows = await db.fetch("SELECT DISTINCT guild_id FROM episodes WHERE state = 'open'")
    return [row["guild_id"] for row in rows]
