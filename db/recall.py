"""Recall search queries: ranked full-text matches among a guild's messages and day summaries.

The query is an OR of terms (`to_tsquery(config, 'sam:* | climbing:* | gym:*')`), ranked
by how many of the terms a row holds, then by `ts_rank_cd`, so a natural question finds the
message sharing most of its words first, not only messages holding every word. Only one guild
is ever searched, with the guild's text search configuration (`guilds.search_config`, 'simple'
by default): the one its vectors were made with (triggers of V011), so 'english' matches
"climbing" to "climbed".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

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


# Tiers of "at least n of the terms" are only written out while they stay this small.
MAX_TIER_OPERANDS = 64

# One row: the candidates' query (see `tiers`), the OR of the terms and each term alone (what
# a match is scored by), all parsed with the guild's configuration.
_QUERY = f"""
    SELECT to_tsquery(config, $5) AS candidates,
           to_tsquery(config, array_to_string($2::text[], ' | ')) AS query,
           array_agg(to_tsquery(config, term)) AS parts
    FROM (SELECT {_GUILD_CONFIG} AS config) c, unnest($2::text[]) AS term
    GROUP BY config
"""
# How many of the question's terms the row holds, then its cover density (divided by the log of
# its length, scaled into [0, 1)): a message holding "climbing" and "gym" beats one saying
# "gym" five times, which plain ts_rank_cd ranks first.
_RANK = "(SELECT count(*) FROM unnest(q.parts) p WHERE {v} @@ p) + ts_rank_cd({v}, q.query, 1|32)"

_MESSAGES = f"""
    WITH q AS ({_QUERY})
    SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content,
           {_RANK.format(v="m.search")} AS rank
    FROM messages m, q
    WHERE m.guild_id = $1 AND NOT m.deleted AND m.search @@ q.candidates
      AND ($3::bigint IS NULL OR m.author_id = $3 OR $3 = ANY(m.mention_ids))
    ORDER BY rank DESC, m.created_at DESC
    LIMIT $4
"""
_SUMMARIES = f"""
    WITH q AS ({_QUERY})
    SELECT s.day, s.user_id, s.summary, {_RANK.format(v="s.search")} AS rank
    FROM daily_summaries s, q
    WHERE s.guild_id = $1 AND s.search @@ q.candidates
      AND ($3::bigint IS NULL OR s.user_id = $3)
    ORDER BY rank DESC, s.day DESC
    LIMIT $4
"""


def tiers(terms: list[str]) -> list[str]:
    """Candidate queries, most demanding first: every term, then any n-1 of them, ... down to
    any one. Since a row's rank starts with how many terms it holds, the best `limit` rows
    holding at least n terms are the best overall once there are `limit` of them; so a
    question of common words ranks the few rows holding most of them, not the tens of
    thousands holding one."""
    found = []
    for size in range(len(terms), 1, -1):
        groups = list(itertools.combinations(terms, size))
        if len(groups) * size <= MAX_TIER_OPERANDS:
            found.append(" | ".join("(" + " & ".join(group) + ")" for group in groups))
    found.append(" | ".join(terms))
    return found


async def _tiered(
    db: Executor, sql: str, guild_id: int, terms: list[str], *, user_id: int | None, limit: int
) -> list[asyncpg.Record]:
    """Rows of the first tier that fills `limit` (the last tier, any term, otherwise)."""
    rows: list[asyncpg.Record] = []
    for candidates in tiers(terms):
        rows = await db.fetch(sql, guild_id, terms, user_id, limit, candidates)
        if len(rows) >= limit:
            break
    return rows


async def search_messages(
    db: Executor, guild_id: int, terms: list[str], *, user_id: int | None, limit: int
) -> list[MessageMatch]:
    """Messages of the guild matching any of `terms` (tsquery operands), best first; with
    `user_id`, only those the member wrote or was mentioned in."""
    rows = await _tiered(db, _MESSAGES, guild_id, terms, user_id=user_id, limit=limit)
    return [MessageMatch(**dict(row)) for row in rows]


async def search_summaries(
    db: Executor, guild_id: int, terms: list[str], *, user_id: int | None, limit: int
) -> list[SummaryMatch]:
    rows = await _tiered(db, _SUMMARIES, guild_id, terms, user_id=user_id, limit=limit)
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


async def set_search_config(connection: asyncpg.Connection, guild_id: int, config: str) -> None:
    """Store the guild's configuration (after `lock_settings`): vectors written from now on
    use it; `reindex_guild` then re-makes the stored ones."""
    await connection.execute(
        "UPDATE guilds SET search_config = $2::text::regconfig, updated_at = now()"
        " WHERE guild_id = $1",
        guild_id,
        config,
    )


# Rows per statement of a re-index: each one short, so no statement meets the pool's command
# timeout and no row stays locked for long on a guild of millions of messages.
REINDEX_BATCH = 10_000
_CONFIG_OF_GUILD = f"(SELECT {_GUILD_CONFIG} AS config) c"
_REINDEX_MESSAGES = f"""
    WITH batch AS (
        SELECT message_id, created_at FROM messages
        WHERE guild_id = $1 AND created_at >= $2 AND (created_at, message_id) > ($2, $3)
        ORDER BY created_at, message_id
        LIMIT $4
    ),
    changed AS (
        UPDATE messages m SET search = to_tsvector(c.config, m.content)
        FROM batch b, {_CONFIG_OF_GUILD}
        WHERE m.message_id = b.message_id
          AND m.search IS DISTINCT FROM to_tsvector(c.config, m.content)
        RETURNING 1
    ),
    last AS (SELECT created_at, message_id FROM batch
             ORDER BY created_at DESC, message_id DESC LIMIT 1)
    SELECT (SELECT count(*) FROM changed) AS changed, last.created_at, last.message_id
    FROM last
"""
_REINDEX_SUMMARIES = f"""
    UPDATE daily_summaries s SET search = to_tsvector(c.config, s.summary)
    FROM {_CONFIG_OF_GUILD}
    WHERE s.guild_id = $1 AND s.day >= $2 AND s.day < $2 + 30
      AND s.search IS DISTINCT FROM to_tsvector(c.config, s.summary)
"""


async def reindex_guild(db: Executor, guild_id: int, *, batch: int = REINDEX_BATCH) -> int:
    """Re-make the search vectors of the guild's messages and day summaries with its current
    configuration, in short statements (oldest first); rows already right are not written, so
    running it again after an interruption only finishes the job. Returns rows rewritten."""
    total = 0
    at, message_id = datetime.min.replace(tzinfo=UTC), 0
    while True:
        row = await db.fetchrow(_REINDEX_MESSAGES, guild_id, at, message_id, batch)
        if row is None:
            break
        total += row["changed"]
        at, message_id = row["created_at"], row["message_id"]
    span = await db.fetchrow(
        "SELECT min(day) AS first, max(day) AS last FROM daily_summaries WHERE guild_id = $1",
        guild_id,
    )
    day = span["first"]
    while day is not None and day <= span["last"]:
        total += int((await db.execute(_REINDEX_SUMMARIES, guild_id, day)).split()[-1])
        day += timedelta(days=30)
    return total
