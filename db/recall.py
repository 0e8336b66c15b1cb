"""Recall search queries: ranked full-text matches among a guild's messages and day summaries.

The query is an OR of terms (`to_tsquery(config, 'sam:* | climbing:* | gym:*')`), ranked
with `ts_rank_cd`, so a natural question finds the message sharing most of its words first,
not only messages holding every word. Only one guild is ever searched, with the guild's text
search configuration (`guilds.search_config`, 'simple' by default): the one its vectors were
made with (triggers of V011), so 'english' matches "climbing" to "climbed".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import asyncpg

Executor = asyncpg.Pool | asyncpg.Connection

# The guild's configuration as a query-time constant (no row lock: readers never wait).
_GUILD_CONFIG = "coalesce((SELECT search_config FROM guilds WHERE guild_id = $1), 'simple')"


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
        f"""
        SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content,
               ts_rank_cd(m.search, q.query) AS rank
        FROM messages m, to_tsquery({_GUILD_CONFIG}, $2) AS q(query)
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
        f"""
        SELECT s.day, s.user_id, s.summary, ts_rank_cd(s.search, q.query) AS rank
        FROM daily_summaries s, to_tsquery({_GUILD_CONFIG}, $2) AS q(query)
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


async def text_search_configs(db: Executor) -> list[str]:
    """Names of the text search configurations the server knows (pg_ts_config)."""
    rows = await db.fetch("SELECT cfgname::text AS name FROM pg_ts_config ORDER BY cfgname")
    return [row["name"] for row in rows]


async def get_search_config(db: Executor, guild_id: int) -> str:
    """The guild's text search configuration; 'simple' for a guild with no row yet."""
    value = await db.fetchval(
        "SELECT search_config::text FROM guilds WHERE guild_id = $1", guild_id
    )
    return value or "simple"


async def set_search_config(connection: asyncpg.Connection, guild_id: int, config: str) -> int:
    """Store the guild's configuration and re-make the search vectors of its messages and day
    summaries with it, in the caller's transaction (after `lock_settings`, so writers wait and
    then use the new one). Returns how many rows were re-indexed."""
    await connection.execute(
        "UPDATE guilds SET search_config = $2::text::regconfig, updated_at = now()"
        " WHERE guild_id = $1",
        guild_id,
        config,
    )
    messages = await connection.execute(
        """
        UPDATE messages SET search = to_tsvector($2::text::regconfig, content)
        WHERE guild_id = $1
        """,
        guild_id,
        config,
    )
    summaries = await connection.execute(
        """
        UPDATE daily_summaries SET search = to_tsvector($2::text::regconfig, summary)
        WHERE guild_id = $1
        """,
        guild_id,
        config,
    )
    return int(messages.split()[-1]) + int(summaries.split()[-1])
