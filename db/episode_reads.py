"""Reading episodes: listings, the current one of a channel, catch-up, digests, search.

Every read that serves members takes `channel_ids` (the channels the reader may read; None:
all, for admin tools), so restricted channels never leave the database for them.
"""

from __future__ import annotations

from datetime import datetime

import asyncpg

from db.types import Executor

_FILTER = "($%d::bigint[] IS NULL OR channel_id = ANY($%d::bigint[]))"


def _channels(position: int) -> str:
    return _FILTER % (position, position)


_LISTING = """
    SELECT * FROM episodes
    WHERE guild_id = $1 AND ($2::bigint IS NULL OR channel_id = $2)
      AND ($3::timestamptz IS NULL OR ended_at >= $3)
      AND ($4::timestamptz IS NULL OR started_at < $4)
      AND {channels}
    ORDER BY {order}
    LIMIT $6
"""
# Two statements, each with its own order: one whose order hangs on a parameter ("CASE WHEN
# $7 THEN message_count END") has a generic plan that sorts every episode the guild ever had
# for its newest page, where the (guild_id, ended_at) index stops at the page
# (tests/db/test_episode_reads.py).
LISTING_NEWEST = _LISTING.format(channels=_channels(5), order="ended_at DESC, id DESC")
# A stretch's biggest, one day at a time: each day's biggest first (the busiest of them first),
# then each day's second, ... (a day by its start in the guild's time zone, $7). The five of
# "what did we talk about last week?" are then five days' talks, not one busy evening's five.
LISTING_BIGGEST = _LISTING.format(
    channels=_channels(5),
    order="""row_number() OVER (
        PARTITION BY (started_at AT TIME ZONE $7)::date
        ORDER BY message_count DESC, ended_at DESC, id DESC),
      message_count DESC, ended_at DESC, id DESC""",
)


async def listing(
    db: Executor,
    guild_id: int,
    *,
    channel_id: int | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    channel_ids: list[int] | None = None,
    limit: int = 50,
    biggest: bool = False,
    timezone: str = "UTC",
) -> list[asyncpg.Record]:
    """Episodes of the guild (one channel, overlapping [start, end)), newest first; with
    `biggest`, the biggest of each day (in `timezone`) first, the busiest day's first, then
    each day's next biggest."""
    arguments = (guild_id, channel_id, start, end, channel_ids, limit)
    if biggest:
        return await db.fetch(LISTING_BIGGEST, *arguments, timezone)
    return await db.fetch(LISTING_NEWEST, *arguments)


async def current(db: Executor, guild_id: int, channel_id: int) -> asyncpg.Record | None:
    """The channel's open episode, if any."""
    return await db.fetchrow(
        """
        SELECT * FROM episodes WHERE guild_id = $1 AND channel_id = $2 AND state = 'open'
        ORDER BY started_at DESC LIMIT 1
        """,
        guild_id,
        channel_id,
    )


async def last_message_at(
    db: Executor, guild_id: int, user_id: int, before: datetime
) -> datetime | None:
    """When the member last wrote in the guild before `before` (their newest live message)."""
    value: datetime | None = await db.fetchval(
        """
        SELECT max(created_at) FROM messages
        WHERE guild_id = $1 AND author_id = $2 AND NOT deleted AND created_at < $3
        """,
        guild_id,
        user_id,
        before,
    )
    return value


async def search(
    db: Executor,
    guild_id: int,
    terms: list[str],
    *,
    channel_ids: list[int] | None,
    limit: int,
) -> list[asyncpg.Record]:
    """Episodes whose title or summary holds any of `terms`, best first (most terms, then
    newest)."""
    if not terms:
        return []
    return await db.fetch(
        f"""
        WITH q AS (SELECT to_tsquery('simple', string_agg(quote_literal(t) || ':*', ' | ')) AS q
                   FROM unnest($2::text[]) AS t)
        SELECT e.*, ts_rank_cd(e.search, q.q) AS rank FROM episodes e, q
        WHERE e.guild_id = $1 AND e.search @@ q.q AND {_channels(3)}
        ORDER BY rank DESC, e.ended_at DESC LIMIT $4
        """,
        guild_id,
        terms,
        channel_ids,
        limit,
    )


async def digest_row(db: Executor, guild_id: int, day: object) -> asyncpg.Record | None:
    return await db.fetchrow(
        "SELECT * FROM episode_digests WHERE guild_id = $1 AND day = $2", guild_id, day
    )


async def store_digest(
    db: Executor, guild_id: int, day: object, channel_id: int, text: str
) -> bool:
    """Record the guild-day's digest once (an empty text: nothing to post); False when it was
    already composed (another worker, an earlier run)."""
    status = await db.execute(
        """
        INSERT INTO episode_digests (guild_id, day, channel_id, text) VALUES ($1, $2, $3, $4)
        ON CONFLICT (guild_id, day) DO NOTHING
        """,
        guild_id,
        day,
        channel_id,
        text,
    )
    return status.endswith(" 1")


async def claim_digest(
    db: Executor, guild_ids: list[int], lease_seconds: float
) -> asyncpg.Record | None:
    """One composed, unposted digest of these guilds, claimed for `lease_seconds` (a poster
    that died leaves it to another after that)."""
    return await db.fetchrow(
        """
        UPDATE episode_digests d SET claimed_at = now()
        WHERE (d.guild_id, d.day) = (
            SELECT guild_id, day FROM episode_digests
            WHERE guild_id = ANY($1::bigint[]) AND posted_at IS NULL AND text <> ''
              AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $2))
            ORDER BY day LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING d.*
        """,
        guild_ids,
        lease_seconds,
    )


async def mark_posted(db: Executor, guild_id: int, day: object) -> None:
    await db.execute(
        "UPDATE episode_digests SET posted_at = now() WHERE guild_id = $1 AND day = $2",
        guild_id,
        day,
    )


async def digest_guilds(db: Executor) -> list[asyncpg.Record]:
    """Guilds with a digest channel and time set (guilds.settings keys)."""
    return await db.fetch(
        """
        SELECT guild_id, timezone, (settings->>'digest_channel_id')::bigint AS channel_id,
               settings->>'digest_time' AS at
        FROM guilds
        WHERE settings ? 'digest_channel_id' AND settings ? 'digest_time'
        """
    )
