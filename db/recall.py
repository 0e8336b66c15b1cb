"""Recall search queries: ranked full-text matches among a guild's messages and day summaries.

The query is an OR of terms (`to_tsquery('simple', 'sam:* | climbing:* | gym:*')`), ranked
with `ts_rank_cd`, so a natural question finds the message sharing most of its words first,
not only messages holding every word. Only one guild is ever searched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import asyncpg

Executor = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True, slots=True)
class MessageMatch:
    message_id: int
    channel_id: int
    author_id: int
    created_at: datetime
    content: str
    rank: float


@dataclass(frozen=True, slots=True)
class SummaryMatch:
    day: date
    user_id: int
    summary: str
    rank: float


async def search_messages(
    db: Executor, guild_id: int, tsquery: str, *, user_id: int | None, limit: int
) -> list[MessageMatch]:
    """Messages of the guild matching `tsquery`, best first; with `user_id`, only those the
    member wrote or was mentioned in."""
    rows = await db.fetch(
        """
        SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content,
               ts_rank_cd(m.search, q.query) AS rank
        FROM messages m, to_tsquery('simple', $2) AS q(query)
        WHERE m.guild_id = $1 AND NOT m.deleted AND m.search @@ q.query
          AND ($3::bigint IS NULL OR m.author_id = $3 OR $3 = ANY(m.mention_ids))
        ORDER BY rank DESC, m.created_at DESC
        LIMIT $4
        """,
        guild_id,
        tsquery,
        user_id,
        limit,
    )
    return [MessageMatch(**dict(row)) for row in rows]


async def search_summaries(
    db: Executor, guild_id: int, tsquery: str, *, user_id: int | None, limit: int
) -> list[SummaryMatch]:
    rows = await db.fetch(
        """
        SELECT s.day, s.user_id, s.summary, ts_rank_cd(s.search, q.query) AS rank
        FROM daily_summaries s, to_tsquery('simple', $2) AS q(query)
        WHERE s.guild_id = $1 AND s.search @@ q.query
          AND ($3::bigint IS NULL OR s.user_id = $3)
        ORDER BY rank DESC, s.day DESC
        LIMIT $4
        """,
        guild_id,
        tsquery,
        user_id,
        limit,
    )
    return [SummaryMatch(**dict(row)) for row in rows]
