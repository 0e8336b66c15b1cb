"""Message storage queries. Writes are idempotent on message_id.

Edits and deletes also mark the summary of the message's local day stale (guild timezone from
`guilds`, else the default), so derived memory is recomputed from what members now see.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from db.consent import STORABLE
from db.rows import fetch_column, from_row
from db.types import Executor, fetch_one
from memory.core.models import ChatMessage
from memory.core.surrogates import clean_text

_COLUMNS = (
    "message_id, guild_id, channel_id, author_id, content, created_at, reply_to_id,"
    " mention_ids, author_is_bot, edited_at, deleted"
)


def _incoming_arrays(messages: Sequence[ChatMessage]) -> list[list[object]]:
    """Column arrays for `unnest`, in the order of `_INCOMING`."""
    return [
        [m.message_id for m in messages],
        [m.guild_id for m in messages],
        [m.channel_id for m in messages],
        [m.author_id for m in messages],
        [clean_text(m.content) for m in messages],
        [m.created_at for m in messages],
        [m.reply_to_id for m in messages],
        ["{" + ",".join(str(i) for i in m.mention_ids) + "}" for m in messages],
        [m.author_is_bot for m in messages],
        [m.edited_at for m in messages],
    ]


_INCOMING = """
    SELECT * FROM unnest(
        $1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[],
        $6::timestamptz[], $7::bigint[], $8::text[], $9::boolean[], $10::timestamptz[]
    ) AS t(message_id, guild_id, channel_id, author_id, content, created_at,
           reply_to_id, mention_ids, author_is_bot, edited_at)
"""


# The tables an import fills (its messages, and what settling them writes), whose statistics it
# may refresh: a table name is an identifier, never a parameter, so only these are accepted.
IMPORTED_TABLES = frozenset(
    {
        "messages",
        "message_embeddings",
        "episodes",
        "summary_days",
        "daily_summaries",
        "day_notes",
        "learned_facts",
    }
)


async def refresh_statistics(db: Executor, tables: Sequence[str] = ("messages",)) -> None:
    """Sample the tables for the planner now, not when autovacuum next looks (up to a minute
    later): a plan made without statistics for a table just filled can read a guild's every
    message where it wants a few (docs/design.md, "Limits")."""
    unknown = set(tables) - IMPORTED_TABLES
    if unknown:
        raise ValueError(f"not a table an import fills: {', '.join(sorted(unknown))}")
    if tables:
        await db.execute(f"ANALYZE {', '.join(sorted(set(tables)))}")


def message_from_row(row: asyncpg.Record) -> ChatMessage:
    return from_row(ChatMessage, row, mention_ids=tuple(row["mention_ids"] or ()))


async def insert_messages(db: Executor, messages: Sequence[ChatMessage]) -> int:
    """Insert messages, ignoring ones already stored; returns how many were new."""
    if not messages:
        return 0
    result = await db.fetchval(
        f"""
        WITH incoming AS ({_INCOMING}),
        inserted AS (
            INSERT INTO messages ({_COLUMNS})
            SELECT message_id, guild_id, channel_id, author_id, content, created_at, reply_to_id,
                   mention_ids::bigint[], author_is_bot, edited_at, false
            FROM incoming i
            WHERE {STORABLE.format(row="i")}
            ON CONFLICT (guild_id, message_id) DO NOTHING
            RETURNING 1
        )
        SELECT count(*) FROM inserted
        """,
        *_incoming_arrays(messages),
    )
    return int(result or 0)


async def get_message(db: Executor, message_id: int) -> ChatMessage | None:
    row = await db.fetchrow(f"SELECT {_COLUMNS} FROM messages WHERE message_id = $1", message_id)
    return message_from_row(row) if row else None


# Local day of a message in its guild's timezone ($tz when the guild has no row).
_MARK_STALE = """
    UPDATE summary_days s SET stale = true
    FROM (
        SELECT DISTINCT c.guild_id,
               (c.created_at AT TIME ZONE COALESCE(g.timezone, {tz}))::date AS day
        FROM changed c LEFT JOIN guilds g ON g.guild_id = c.guild_id
    ) d
    WHERE s.guild_id = d.guild_id AND s.day = d.day AND NOT s.stale
    RETURNING 1
"""


async def apply_edits(
    db: Executor, messages: Sequence[ChatMessage], *, default_timezone: str = "UTC"
) -> tuple[int, int]:
    """Store the new text of edited messages; returns (updated, inserted).

    A stored message gets the new content and `edited_at`, and the summary of its local day is
    marked stale. A message we never stored (sent while the bot was away) is inserted as it is
    now. Deleted messages stay deleted: a late edit must not bring their text back.
    """
    if not messages:
        return (0, 0)
    row = await fetch_one(
        db,
        f"""
        WITH incoming AS ({_INCOMING}),
        changed AS (
            UPDATE messages m SET
                content = i.content,
                mention_ids = i.mention_ids::bigint[],
                edited_at = COALESCE(i.edited_at, m.edited_at)
            FROM incoming i
            WHERE m.guild_id = i.guild_id AND m.message_id = i.message_id AND NOT m.deleted
              AND (m.content IS DISTINCT FROM i.content
                   OR m.mention_ids IS DISTINCT FROM i.mention_ids::bigint[])
            RETURNING m.guild_id, m.created_at
        ),
        inserted AS (
            INSERT INTO messages ({_COLUMNS})
            SELECT message_id, guild_id, channel_id, author_id, content, created_at, reply_to_id,
                   mention_ids::bigint[], author_is_bot, edited_at, false
            FROM incoming i
            WHERE NOT EXISTS (SELECT 1 FROM messages m
                              WHERE m.guild_id = i.guild_id AND m.message_id = i.message_id)
              AND {STORABLE.format(row="i")}
            ON CONFLICT (guild_id, message_id) DO NOTHING
            RETURNING 1
        ),
        staled AS ({_MARK_STALE.format(tz="$11::text")})
        SELECT (SELECT count(*) FROM changed) AS updated,
               (SELECT count(*) FROM inserted) AS inserted
        """,
        *_incoming_arrays(messages),
        default_timezone,
    )
    return (int(row["updated"]), int(row["inserted"]))


async def mark_deleted(
    db: Executor, guild_id: int, message_ids: Sequence[int], *, default_timezone: str = "UTC"
) -> int:
    """Blank the content of a guild's deleted messages (privacy), flag them, and mark the
    summaries of their local days stale so deleted words leave memory too. Returns how many
    rows changed."""
    if not message_ids:
        return 0
    result = await db.fetchval(
        f"""
        WITH changed AS (
            UPDATE messages SET content = '', deleted = true
            WHERE guild_id = $3 AND message_id = ANY($1::bigint[]) AND NOT deleted
            RETURNING guild_id, created_at
        ),
        staled AS ({_MARK_STALE.format(tz="$2::text")})
        SELECT count(*) FROM changed
        """,
        list(message_ids),
        default_timezone,
        guild_id,
    )
    return int(result or 0)


async def last_message_ids(
    db: Executor, guild_id: int, channel_ids: Sequence[int]
) -> dict[int, int]:
    """Newest stored message id per channel of a guild (channels with none are absent):
    backfill's start."""
    if not channel_ids:
        return {}
    rows = await db.fetch(
        """
        SELECT c.channel_id, last.message_id
        FROM unnest($1::bigint[]) AS c(channel_id)
        CROSS JOIN LATERAL (
            SELECT message_id FROM messages m
            WHERE m.guild_id = $2 AND m.channel_id = c.channel_id
            ORDER BY message_id DESC LIMIT 1
        ) AS last
        """,
        list(channel_ids),
        guild_id,
    )
    return {row["channel_id"]: row["message_id"] for row in rows}


async def stored_ids(
    db: Executor, guild_id: int, channel_id: int, after_id: int, up_to_id: int
) -> list[int]:
    """A channel's stored, not deleted message ids in (after_id, up_to_id], oldest first."""
    return await fetch_column(
        db,
        """
        SELECT message_id FROM messages
        WHERE guild_id = $4 AND channel_id = $1 AND message_id > $2 AND message_id <= $3
          AND NOT deleted
        ORDER BY message_id
        """,
        channel_id,
        after_id,
        up_to_id,
        guild_id,
    )
