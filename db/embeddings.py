"""Queries of `message_embeddings` (V012, V028, pgvector): which messages still need a vector,
storing vectors, and the nearest messages to a question's vector.

Vectors travel as pgvector's text form (`[0.1,0.2,...]::halfvec`), so no codec is registered on
the pool. An embedding counts only while its `content_md5` matches the message's text: an
edited message is embedded again, a deleted one (blanked) drops out. Each vector is stored at
its model's own width; a search names its width, so it walks that width's HNSW index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from db.recall import MessageMatch
from db.rows import execute_counted, fetch_as, fetch_column
from db.types import Executor

# Above every message id: "before" no message at all, as an index condition (an `$3 IS NULL OR`
# is a filter instead, and a run read past every message it had embedded, batch after batch).
_NO_ID = (1 << 63) - 1
# A message's text, as the embedding was made from it.
_CURRENT = "e.content_md5 = md5(m.content)"
# A message `m` (its embedding `e`, left joined) that needs a vector: text, and none current.
_NEEDS_VECTOR = f"NOT m.deleted AND m.content <> '' AND (e.message_id IS NULL OR NOT ({_CURRENT}))"


def _by_key(
    table: str, alias: str, message_id: str, guild_id: str = "$1", *, left: bool = False
) -> str:
    """A join to the row of `table` for (`guild_id`, `message_id`) (with `left`, a left join:
    none when there is no row), read by its key whatever the statistics say. A plain join left
    the planner free to scan the whole guild for each row when its statistics predated the
    guild's growth (the guild thought empty, every plan looks as cheap): the nearest 80 read
    45,000 rows of a 1,200-message guild, a member's 400 newest 480,000, and storing a batch of
    100 vectors read the whole table; a million-message guild would run into the time limit.
    OFFSET 0 keeps the read a subquery of its own (PostgreSQL does not flatten it into the
    join), run once per row by the table's key."""
    read = f"(SELECT * FROM {table} WHERE guild_id = {guild_id} AND message_id = {message_id}"
    if left:
        return f"LEFT JOIN LATERAL {read} OFFSET 0) {alias} ON true"
    return f"CROSS JOIN LATERAL {read} OFFSET 0) {alias}"


@dataclass(frozen=True, slots=True)
class ToEmbed:
    message_id: int
    guild_id: int
    content: str


async def embeddings_ready(db: Executor) -> bool:
    """Whether V028 could create the table (pgvector is installed and allowed)."""
    return bool(await db.fetchval("SELECT to_regclass('message_embeddings') IS NOT NULL"))


def vector_text(vector: Sequence[float]) -> str:
    return "[" + ",".join(f"{value:.7g}" for value in vector) + "]"


async def messages_to_embed(
    db: Executor, guild_id: int, limit: int, *, before: int | None = None
) -> list[ToEmbed]:
    """The guild's newest messages with text and no current embedding; with `before`, only
    older than that message (a run goes on from its last batch instead of reading again past
    every message it just embedded)."""
    return await fetch_as(
        db,
        ToEmbed,
        f"""
        SELECT m.message_id, m.guild_id, m.content FROM messages m
        {_by_key("message_embeddings", "e", "m.message_id", left=True)}
        WHERE m.guild_id = $1 AND m.message_id < coalesce($3::bigint, {_NO_ID})
          AND {_NEEDS_VECTOR}
        ORDER BY m.message_id DESC
        LIMIT $2
        """,
        guild_id,
        limit,
        before,
    )


async def noted_to_embed(db: Executor, guild_id: int, message_ids: Sequence[int]) -> list[ToEmbed]:
    """Those of these messages of the guild that have text and no current embedding, newest
    first, each read by its key (a live batch's messages, not the guild's history)."""
    return await fetch_as(
        db,
        ToEmbed,
        f"""
        SELECT m.message_id, m.guild_id, m.content
        FROM unnest($2::bigint[]) AS noted(message_id)
        {_by_key("messages", "m", "noted.message_id")}
        {_by_key("message_embeddings", "e", "m.message_id", left=True)}
        WHERE {_NEEDS_VECTOR}
        ORDER BY m.message_id DESC
        """,
        guild_id,
        list(message_ids),
    )


async def guilds_to_embed(db: Executor, since: datetime) -> list[int]:
    """Guilds with messages since `since` that have no current embedding (the sweep's look)."""
    return await fetch_column(
        db,
        f"""
        SELECT DISTINCT m.guild_id FROM messages m
        LEFT JOIN message_embeddings e ON e.guild_id = m.guild_id AND e.message_id = m.message_id
        WHERE m.created_at >= $1 AND {_NEEDS_VECTOR}
        """,
        since,
    )


async def store_embeddings(
    db: Executor, model: str, items: Sequence[tuple[ToEmbed, Sequence[float]]]
) -> int:
    """Store (or replace) one vector per message; a message deleted meanwhile is skipped."""
    if not items:
        return 0
    return await execute_counted(
        db,
        f"""
        INSERT INTO message_embeddings (message_id, guild_id, model, content_md5, embedding)
        SELECT i.message_id, i.guild_id, $1, md5(i.content), i.embedding::halfvec
        FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[])
             AS i(message_id, guild_id, content, embedding)
        {_by_key("messages", "m", "i.message_id", "i.guild_id")}
        ON CONFLICT (guild_id, message_id) DO UPDATE
        SET model = EXCLUDED.model, content_md5 = EXCLUDED.content_md5,
            embedding = EXCLUDED.embedding
        """,
        model,
        [item.message_id for item, _ in items],
        [item.guild_id for item, _ in items],
        [item.content for item, _ in items],
        [vector_text(vector) for _, vector in items],
    )


# Candidates read from the HNSW index per hit wanted, before the join drops edited or deleted
# messages (a guild-wide search; a member's search reads their own messages exactly).
# Messages of the same words are equally near: the newest comes first, so one question finds
# the same ones every time (the index's walk, built at random, lists them in any order).
CANDIDATES_PER_HIT = 4

# The widths V028 indexes (one partial HNSW index each): the local model's, the API models'.
STORED_WIDTHS = (256, 768)


def hnsw_index(width: int) -> str:
    """The name of the HNSW index over vectors of `width` components (V028)."""
    return f"message_embeddings_hnsw_{width}_idx"


def create_hnsw_index(width: int) -> str:
    """V028's statement for that index, for tools that drop it to bulk-load and build it once."""
    return (
        f"CREATE INDEX IF NOT EXISTS {hnsw_index(width)} ON message_embeddings"
        f" USING hnsw ((embedding::halfvec({width})) halfvec_cosine_ops)"
        f" WHERE vector_dims(embedding) = {width}"
    )


def _guild_nearest(width: int) -> str:
    # The ORDER BY and the width test spell V028's index expression and predicate exactly, or
    # the planner cannot use the index.
    near = f"e.embedding::halfvec({width}) <=> $2::halfvec({width})"
    return f"""
WITH nearest AS MATERIALIZED (
    SELECT e.message_id, e.content_md5, {near} AS distance
    FROM message_embeddings e
    WHERE e.guild_id = $1 AND e.model = $3 AND vector_dims(e.embedding) = {width}
    ORDER BY {near}
    LIMIT $4 * {CANDIDATES_PER_HIT}
)
SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content, 1 - e.distance AS rank
FROM nearest e {_by_key("messages", "m", "e.message_id")}
WHERE NOT m.deleted AND {_CURRENT}
ORDER BY e.distance, m.message_id DESC
LIMIT $4
"""


# A guild whose walk stopped short is ranked exactly, over its newest this many vectors.
EXACT_WINDOW = 20_000


def _guild_exactly(width: int) -> str:
    """The guild's newest EXACT_WINDOW vectors ranked exactly (read by the table's key): what
    a guild gets when the walk of the index shared with bigger guilds stopped short. pgvector
    ends an iterative walk after `hnsw.max_scan_tuples` tuples (20,000 by default) of every
    guild, nearest first; where the planner walks the index for a small guild (a generic plan,
    blind to which guild), the guild holds few of them, and its search found a handful of its
    messages, not its nearest."""
    return _ranked_exactly(
        width,
        f"""SELECT e.message_id FROM message_embeddings e WHERE e.guild_id = $1
    ORDER BY e.message_id DESC LIMIT {EXACT_WINDOW}""",
    )


def _ranked_exactly(width: int, chosen: str) -> str:
    """The `chosen` message ids (a query on a (guild, ...) index) ranked by exact distance.
    Not the HNSW index's expression, on purpose: a walk of the index would return the guild's
    nearest and then drop those not chosen, leaving the chosen unranked (or none at all)."""
    near = "e.embedding <=> $2::halfvec"
    return f"""
WITH chosen AS MATERIALIZED ({chosen})
SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content, 1 - ({near}) AS rank
FROM chosen {_by_key("messages", "m", "chosen.message_id")}
{_by_key("message_embeddings", "e", "chosen.message_id")}
WHERE e.model = $3 AND vector_dims(e.embedding) = {width} AND {_CURRENT}
ORDER BY {near}, m.message_id DESC
LIMIT $4
"""


# A search within a time ranks exactly the newest PERIOD_WINDOW messages said in it, read from
# the (guild, time) index: a question that names a day finds what was said that day even when
# no word and no HNSW neighbour of the guild's ties it to the question.
PERIOD_WINDOW = 2000


def _period_nearest(width: int) -> str:
    return _ranked_exactly(
        width,
        f"""SELECT m.message_id FROM messages m
    WHERE m.guild_id = $1 AND m.created_at >= $5 AND m.created_at < $6 AND NOT m.deleted
      AND ($7::bigint IS NULL OR m.author_id = $7)
    ORDER BY m.created_at DESC LIMIT {PERIOD_WINDOW}""",
    )


# A member's search ranks exactly what they wrote most recently: their newest MEMBER_WINDOW
# messages, read from the (guild, author, time) index. Ranking all of a busy member's messages
# (a sixth of a million-message guild) read and compared ~150,000 vectors: seconds. Messages
# that only mention the member are left to full text (no index finds them by member).
MEMBER_WINDOW = 2000


def _member_nearest(width: int) -> str:
    return _ranked_exactly(
        width,
        f"""SELECT m.message_id FROM messages m
    WHERE m.guild_id = $1 AND m.author_id = $5 AND NOT m.deleted
    ORDER BY m.created_at DESC LIMIT {MEMBER_WINDOW}""",
    )


async def nearest_messages(
    db: asyncpg.Pool,
    guild_id: int,
    vector: Sequence[float],
    *,
    model: str,
    limit: int,
    user_id: int | None = None,
    period: tuple[datetime, datetime] | None = None,
) -> list[MessageMatch]:
    """The guild's messages closest in meaning to `vector` (cosine), nearest first, ranked
    1 - distance; only current embeddings of the same model; with `user_id`, only the newest
    MEMBER_WINDOW messages the member wrote; with `period` [from, to), only the newest
    PERIOD_WINDOW messages said within it (and by `user_id` when given).

    A guild-wide search walks the HNSW index (iteratively, pgvector 0.8, so the guild filter
    still fills the list) for a few candidates per hit, then joins them to their messages: the
    planner cannot see through the join's md5 check and would otherwise sort the whole guild.
    When the walk brings fewer than `limit`, the guild's newest vectors are ranked exactly
    (`_guild_exactly`): a small guild in a database shared with large ones. A
    member's search ranks their newest messages exactly (found by the author index). A
    vector of a width V028 does not index is an error, not a scan of the whole guild."""
    width = len(vector)
    if width not in STORED_WIDTHS:
        raise ValueError(f"no index for {width}-dimensional vectors (stored: {STORED_WIDTHS})")
    async with db.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        if period is not None:
            start, end = period
            rows = await connection.fetch(
                _period_nearest(width),
                *(guild_id, vector_text(vector), model, limit, start, end, user_id),
            )
        elif user_id is None:
            arguments = (guild_id, vector_text(vector), model, limit)
            rows = await connection.fetch(_guild_nearest(width), *arguments)
            if len(rows) < limit:  # the walk stopped short (or the guild is that small)
                rows = await connection.fetch(_guild_exactly(width), *arguments)
        else:
            rows = await connection.fetch(
                _member_nearest(width), guild_id, vector_text(vector), model, limit, user_id
            )
    return [MessageMatch(**dict(row)) for row in rows]
