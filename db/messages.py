"""Message storage queries. Writes are idempotent on message_id."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from memory.models import ChatMessage

Executor = asyncpg.Pool | asyncpg.Connection

_COLUMNS = (
    "message_id, guild_id, channel_id, author_id, content, created_at, reply_to_id,"
    " mention_ids, author_is_bot, edited_at, deleted"
)


def message_from_row(row: asyncpg.Record) -> ChatMessage:
    return ChatMessage(
        message_id=row["message_id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        author_id=row["author_id"],
        content=row["content"],
        created_at=row["created_at"],
        reply_to_id=row["reply_to_id"],
        mention_ids=tuple(row["mention_ids"] or ()),
        author_is_bot=row["author_is_bot"],
        edited_at=row["edited_at"],
        deleted=row["deleted"],
    )


async def insert_messages(db: Executor, messages: Sequence[ChatMessage]) -> int:
    """Insert messages, ignoring ones already stored; returns how many were new."""
    if not messages:
        return 0
    result = await db.fetchval(
        f"""
        WITH incoming AS (
            SELECT * FROM unnest(
                $1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[],
                $6::timestamptz[], $7::bigint[], $8::text[], $9::boolean[], $10::timestamptz[]
            ) AS t(message_id, guild_id, channel_id, author_id, content, created_at,
                   reply_to_id, mention_ids, author_is_bot, edited_at)
        ), inserted AS (
            INSERT INTO messages ({_COLUMNS})
            SELECT message_id, guild_id, channel_id, author_id, content, created_at, reply_to_id,
                   mention_ids::bigint[], author_is_bot, edited_at, false
            FROM incoming
            ON CONFLICT (message_id) DO NOTHING
            RETURNING 1
        )
        SELECT count(*) FROM inserted
        """,
        [m.message_id for m in messages],
        [m.guild_id for m in messages],
        [m.channel_id for m in messages],
        [m.author_id for m in messages],
        [m.content for m in messages],
        [m.created_at for m in messages],
        [m.reply_to_id for m in messages],
        ["{" + ",".join(str(i) for i in m.mention_ids) + "}" for m in messages],
        [m.author_is_bot for m in messages],
        [m.edited_at for m in messages],
    )
    return int(result or 0)


async def get_message(db: Executor, message_id: int) -> ChatMessage | None:
    row = await db.fetchrow(f"SELECT {_COLUMNS} FROM messages WHERE message_id = $1", message_id)
    return message_from_row(row) if row else None
