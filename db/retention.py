"""Retention queries: delete old raw messages in bounded batches.

Each call is one short statement over at most `limit` rows, so a large backlog never holds
locks on `messages` for long and ingestion keeps flowing between batches. Facts, summaries and
merged contexts live in other tables and are never touched here.
"""

from __future__ import annotations

from datetime import datetime

from db.types import Executor


async def delete_messages_before(db: Executor, cutoff: datetime, *, limit: int) -> dict[int, int]:
    """Delete up to `limit` of the oldest messages created before `cutoff`.

    Returns deleted counts per guild. Rows locked by a concurrent edit are skipped and caught by
    the next batch or run.
    """
    rows = await db.fetch(
        """
        WITH doomed AS (
            SELECT guild_id, message_id FROM messages
            WHERE created_at < $1
            ORDER BY created_at
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        ), deleted AS (
            DELETE FROM messages m USING doomed d
            WHERE m.guild_id = d.guild_id AND m.message_id = d.message_id
            RETURNING m.guild_id
        )
        SELECT guild_id, count(*) AS n FROM deleted GROUP BY guild_id
        """,
        cutoff,
        limit,
    )
    return {row["guild_id"]: row["n"] for row in rows}


async def count_messages_before(db: Executor, cutoff: datetime) -> dict[int, int]:
    """How many messages per guild a run with this cutoff would delete (for --dry-run)."""
    rows = await db.fetch(
        "SELECT guild_id, count(*) AS n FROM messages WHERE created_at < $1 GROUP BY guild_id",
        cutoff,
    )
    return {row["guild_id"]: row["n"] for row in rows}
