"""A guild's text search configuration ('simple', 'english', ...): which ones the server
knows, the guild's, changing it, and re-making the stored search vectors after a change in
short statements that an interruption only pauses.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from db.recall import GUILD_CONFIG
from db.rows import execute_counted
from db.types import Connection, Executor, fetch_one


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


async def set_search_config(connection: Connection, guild_id: int, config: str) -> None:
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
_CONFIG_OF_GUILD = f"(SELECT {GUILD_CONFIG} AS config) c"
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
        WHERE m.guild_id = $1 AND m.message_id = b.message_id
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
    span = await fetch_one(
        db,
        "SELECT min(day) AS first, max(day) AS last FROM daily_summaries WHERE guild_id = $1",
        guild_id,
    )
    day = span["first"]
    while day is not None and day <= span["last"]:
        total += await execute_counted(db, _REINDEX_SUMMARIES, guild_id, day)
        day += timedelta(days=30)
    return total
