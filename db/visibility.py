"""Queries of `channel_visibility`: which channels @everyone may read, per guild.

Shared memory is made only of messages that pass `SHARED_SOURCE`: a channel recorded as
public, a channel never recorded (imported channels nobody marked count as public), or any
channel of a guild whose settings say `memory_sources = all`. Every query that reads a day's
messages for notes and summaries, and every fingerprint that decides whether a day must be read
again, uses the same predicate, so a channel turning restricted changes those fingerprints.
"""

from __future__ import annotations

from collections.abc import Sequence

from db.rows import execute_counted
from db.types import Connection, Executor
from memory.core.channels import ChannelView

# A message row aliased `{m}` may feed shared memory. Unknown channels count as public.
SHARED_SOURCE = """
    (NOT EXISTS (SELECT 1 FROM channel_visibility cv
                 WHERE cv.guild_id = {m}.guild_id AND cv.channel_id = {m}.channel_id
                   AND NOT cv.public)
     OR EXISTS (SELECT 1 FROM guilds sg
                WHERE sg.guild_id = {m}.guild_id AND sg.settings->>'memory_sources' = 'all'))
"""


def shared_source(alias: str = "m") -> str:
    """`SHARED_SOURCE` for the messages table aliased `alias`."""
    return SHARED_SOURCE.format(m=alias)


async def record_channels(
    connection: Connection,
    guild_id: int,
    channels: Sequence[ChannelView],
    *,
    source: str = "discord",
) -> list[int]:
    """Store what Discord (or an admin) says of these channels; the ids whose visibility
    changed (a channel never recorded counted as public)."""
    if not channels:
        return []
    ids = [channel.channel_id for channel in channels]
    async with connection.transaction():
        before = {
            row["channel_id"]: row["public"]
            for row in await connection.fetch(
                "SELECT channel_id, public FROM channel_visibility"
                " WHERE guild_id = $1 AND channel_id = ANY($2::bigint[]) FOR UPDATE",
                guild_id,
                ids,
            )
        }
        await connection.executemany(
            """
            INSERT INTO channel_visibility
                (guild_id, channel_id, parent_id, kind, public, name, source, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, now())
            ON CONFLICT (guild_id, channel_id) DO UPDATE SET
                parent_id = EXCLUDED.parent_id, kind = EXCLUDED.kind, public = EXCLUDED.public,
                name = coalesce(EXCLUDED.name, channel_visibility.name),
                source = EXCLUDED.source, updated_at = now()
            """,
            [
                (guild_id, c.channel_id, c.parent_id, c.kind, c.public, c.name, source)
                for c in channels
            ],
        )
    return [c.channel_id for c in channels if before.get(c.channel_id, True) != c.public]


async def channel_visibility(
    db: Executor, guild_id: int
) -> dict[int, tuple[bool, str, str | None]]:
    """channel id -> (public, source, name) of every recorded channel of the guild."""
    rows = await db.fetch(
        "SELECT channel_id, public, source, name FROM channel_visibility WHERE guild_id = $1",
        guild_id,
    )
    return {row["channel_id"]: (row["public"], row["source"], row["name"]) for row in rows}


async def restricted_channels(db: Executor, guild_id: int) -> set[int]:
    rows = await db.fetch(
        "SELECT channel_id FROM channel_visibility WHERE guild_id = $1 AND NOT public", guild_id
    )
    return {row["channel_id"] for row in rows}


async def public_channel_ids(db: Executor, guild_id: int) -> set[int]:
    """Channels of the guild everyone can read: recorded as public, or never recorded (an
    imported channel nobody marked) among the channels the guild's messages were posted in."""
    rows = await db.fetch(
        """
        SELECT channel_id FROM channel_visibility WHERE guild_id = $1 AND public
        UNION
        SELECT DISTINCT m.channel_id FROM messages m
        WHERE m.guild_id = $1 AND NOT EXISTS (
            SELECT 1 FROM channel_visibility cv
            WHERE cv.guild_id = m.guild_id AND cv.channel_id = m.channel_id)
        """,
        guild_id,
    )
    return {row["channel_id"] for row in rows}


async def mark_channel_days_stale(
    db: Executor, guild_id: int, channel_ids: Sequence[int], timezone: str
) -> int:
    """Mark stale every summarised day holding messages of these channels (their summaries
    are rebuilt with or without them); how many days were marked."""
    if not channel_ids:
        return 0
    return await execute_counted(
        db,
        """
        UPDATE summary_days s SET stale = true
        WHERE s.guild_id = $1 AND NOT s.stale AND s.day IN (
            SELECT DISTINCT (m.created_at AT TIME ZONE $3)::date FROM messages m
            WHERE m.guild_id = $1 AND m.channel_id = ANY($2::bigint[]) AND NOT m.deleted)
        """,
        guild_id,
        list(channel_ids),
        timezone,
    )


async def drop_shared_memory(
    connection: Connection, guild_id: int, channel_ids: Sequence[int], timezone: str
) -> int:
    """What shared memory holds of days with messages of these channels (now restricted),
    so no fallback serves it before those days are rebuilt: the passes (and their notes) whose
    stretch holds such a message, the days' summaries, the days-2-7 narratives covering them,
    and the merged contexts of every member those concerned. How many rows were deleted."""
    if not channel_ids:
        return 0
    ids = list(channel_ids)
    async with connection.transaction():
        rows = await connection.fetch(
            """
            WITH touched AS (
                SELECT DISTINCT (m.created_at AT TIME ZONE $3)::date AS day FROM messages m
                WHERE m.guild_id = $1 AND m.channel_id = ANY($2::bigint[]) AND NOT m.deleted
            ),
            passes AS (
                DELETE FROM day_passes p
                WHERE p.guild_id = $1 AND EXISTS (
                    SELECT 1 FROM messages m
                    WHERE m.guild_id = $1 AND m.channel_id = ANY($2::bigint[]) AND NOT m.deleted
                      AND m.created_at >= p.start_at AND m.created_at < p.end_at)
                RETURNING p.day, p.start_at
            ),
            notes AS (
                SELECT n.user_id FROM day_notes n JOIN passes p
                  ON n.guild_id = $1 AND n.day = p.day AND n.start_at = p.start_at
            ),
            daily AS (
                DELETE FROM daily_summaries d USING touched t
                WHERE d.guild_id = $1 AND d.day = t.day RETURNING d.user_id
            ),
            history AS (
                DELETE FROM historical_summaries h
                WHERE h.guild_id = $1 AND EXISTS (
                    SELECT 1 FROM touched t WHERE t.day BETWEEN h.end_day - 7 AND h.end_day)
                RETURNING h.user_id
            ),
            concerned AS (
                SELECT user_id FROM notes UNION SELECT user_id FROM daily
                UNION SELECT user_id FROM history
            ),
            contexts AS (
                DELETE FROM merged_contexts c USING concerned w
                WHERE c.guild_id = $1 AND c.user_id = w.user_id RETURNING c.user_id
            )
            SELECT (SELECT count(*) FROM passes) + (SELECT count(*) FROM daily)
                 + (SELECT count(*) FROM history) + (SELECT count(*) FROM contexts) AS n
            """,
            guild_id,
            ids,
            timezone,
        )
    return int(rows[0]["n"])


async def forget_learned_from(db: Executor, guild_id: int, channel_ids: Sequence[int]) -> int:
    """Delete the learned facts whose provenance holds a message of these channels (now
    restricted); re-reading their days learns again what the public channels said."""
    if not channel_ids:
        return 0
    return await execute_counted(
        db,
        """
        DELETE FROM learned_facts f
        WHERE f.guild_id = $1 AND EXISTS (
            SELECT 1 FROM messages m
            WHERE m.message_id = ANY(f.message_ids) AND m.guild_id = $1
              AND m.channel_id = ANY($2::bigint[]))
        """,
        guild_id,
        list(channel_ids),
    )


async def restricted_days(db: Executor, guild_id: int, timezone: str) -> int:
    """Mark stale every summarised day holding messages of a restricted channel (the guild's
    memory_sources changed, so those days are read again with or without them)."""
    restricted = await restricted_channels(db, guild_id)
    return await mark_channel_days_stale(db, guild_id, sorted(restricted), timezone)
