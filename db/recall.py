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

# One row: the candidates' queries (see `tiers`), the OR of the terms and each term alone (what
# a match is scored by), all parsed with the guild's configuration.
_QUERY = f"""
    SELECT to_tsquery(config, $5) AS candidates, to_tsquery(config, $7) AS authored,
           to_tsquery(config, array_to_string($2::text[], ' | ')) AS query,
           array_agg(to_tsquery(config, term)) AS parts
    FROM (SELECT {_GUILD_CONFIG} AS config) c, unnest($2::text[]) AS term
    GROUP BY config
"""
# How many of the question's terms the row holds (a member named in the question counts as one
# more for what they wrote, or for their day summary), then its cover density (divided by the
# log of its length, scaled into [0, 1)): a message holding "climbing" and "gym" beats one
# saying "gym" five times, which plain ts_rank_cd ranks first; and for "what did bob say about
# Berlin?" bob's message about Berlin beats others' messages about Berlin.
_RANK = (
    "(SELECT count(*) FROM unnest(q.parts) p WHERE {v} @@ p)"
    " + ({who} = ANY($6::bigint[]))::int + ts_rank_cd({v}, q.query, 1|32)"
)
_MATCHES = "({v} @@ q.candidates OR ({who} = ANY($6::bigint[]) AND {v} @@ q.authored))"

_MESSAGES = f"""
    WITH q AS ({_QUERY})
    SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content,
           {_RANK.format(v="m.search", who="m.author_id")} AS rank
    FROM messages m, q
    WHERE m.guild_id = $1 AND NOT m.deleted AND {_MATCHES.format(v="m.search", who="m.author_id")}
      AND ($3::bigint IS NULL OR m.author_id = $3 OR $3 = ANY(m.mention_ids))
    ORDER BY rank DESC, m.created_at DESC
    LIMIT $4
"""
_SUMMARIES = f"""
    WITH q AS ({_QUERY})
    SELECT s.day, s.user_id, s.summary, {_RANK.format(v="s.search", who="s.user_id")} AS rank
    FROM daily_summaries s, q
    WHERE s.guild_id = $1 AND {_MATCHES.format(v="s.search", who="s.user_id")}
      AND ($3::bigint IS NULL OR s.user_id = $3)
    ORDER BY rank DESC, s.day DESC
    LIMIT $4
"""


def _at_least(terms: list[str], size: int) -> str | None:
    """A tsquery matching rows holding at least `size` of `terms`; None when there is no such
    row to ask for (size 0 or more than the terms) or the query would be too long."""
    if size < 1 or size > len(terms):
        return None
    if size == 1:
        return " | ".join(terms)
    groups = list(itertools.combinations(terms, size))
    if len(groups) * size > MAX_TIER_OPERANDS:
        return None
    return " | ".join("(" + " & ".join(group) + ")" for group in groups)


def tiers(terms: list[str], *, authors: bool = False) -> list[tuple[str | None, str | None]]:
    """Candidate queries, most demanding first: rows holding every term, then any n-1 of them,
    ... down to any one; as (query for any row, query for rows of the named members, who need
    one term less). Since a row's rank starts with how many terms it holds, the best `limit`
    rows holding at least n terms are the best overall once there are `limit` of them; so a
    question of common words ranks the few rows holding most of them, not the tens of
    thousands holding one. A tier too long to write is skipped: the next one holds it."""
    found: list[tuple[str | None, str | None]] = []
    for size in range(len(terms) + (1 if authors else 0), 1, -1):
        text = _at_least(terms, size)
        authored = _at_least(terms, size - 1) if authors else None
        if text is not None or authored is not None:
            found.append((text, authored))
    found.append((" | ".join(terms), None))
    return found


async def _tiered(
    db: Executor,
    sql: str,
    guild_id: int,
    terms: list[str],
    *,
    user_id: int | None,
    limit: int,
    named: list[int],
) -> list[asyncpg.Record]:
    """Rows of the first tier that fills `limit` (the last tier, any term, otherwise)."""
    rows: list[asyncpg.Record] = []
    for candidates, authored in tiers(terms, authors=bool(named)):
        rows = await db.fetch(sql, guild_id, terms, user_id, limit, candidates, named, authored)
        if len(rows) >= limit:
            break
    return rows


async def search_messages(
    db: Executor,
    guild_id: int,
    terms: list[str],
    *,
    user_id: int | None,
    limit: int,
    named: list[int] | None = None,
) -> list[MessageMatch]:
    """Messages of the guild matching any of `terms` (tsquery operands), best first (one of the
    `named` members' own messages counts as holding one term more); with `user_id`, only
    those the member wrote or was mentioned in."""
    rows = await _tiered(
        db, _MESSAGES, guild_id, terms, user_id=user_id, limit=limit, named=named or []
    )
    return [MessageMatch(**dict(row)) for row in rows]


async def search_summaries(
    db: Executor,
    guild_id: int,
    terms: list[str],
    *,
    user_id: int | None,
    limit: int,
    named: list[int] | None = None,
) -> list[SummaryMatch]:
    rows = await _tiered(
        db, _SUMMARIES, guild_id, terms, user_id=user_id, limit=limit, named=named or []
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
