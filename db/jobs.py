"""The job queue's schema (pgqueuer's own tables) and the queries that decide what to queue.

The schema is installed and upgraded by the library, after the numbered migrations and under
their advisory lock, so every process that opens the database finds the queue ready; pgqueuer
keeps its schema declaration itself and `apply_upgrade` converges an older installation onto it.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta

import asyncpg
from pgqueuer import Queries
from pgqueuer.domain.settings import db_settings

from db.summaries import NEEDS_CLOSE
from db.types import Connection
from db.visibility import shared_source

_log = logging.getLogger(__name__)


async def ensure_job_queue(connection: Connection) -> None:
    """Install pgqueuer's tables on a new database, upgrade them on an old one."""
    # pgqueuer types its argument as a plain connection; a pooled one behaves the same.
    queries = Queries.from_asyncpg_connection(connection)  # type: ignore[arg-type]
    if not await queries.schema_is_installed():
        _log.info("installing the job queue tables")
        await queries.install()
        return
    plan = await queries.plan_upgrade()
    if plan.statements:
        _log.info("upgrading the job queue tables (%d statements)", len(plan.statements))
        await queries.apply_upgrade()


# Jobs of a guild-day that failed for good are not queued again for this long (then retried).
FAILED_RETRY_AFTER = timedelta(days=1)


def close_day_key(guild_id: int, day: date) -> str:
    """The dedupe key of a guild-day's close: at most one queued or running per guild-day."""
    return f"close_day:{guild_id}:{day.isoformat()}"


async def due_days(
    db: asyncpg.Pool | Connection,
    *,
    now: datetime,
    lookback: timedelta,
    default_timezone: str,
    limit: int,
) -> list[tuple[int, date]]:
    """Past guild-days (in each guild's time zone) whose stored summaries no longer match their
    messages, or were never made: the days a worker should close. One query for all guilds.

    The queue table is read by the name pgqueuer gives it (PGQUEUER_PREFIX, PGQUEUER_SCHEMA or
    a bare QUEUE_TABLE in the environment rename it for the library, and so here too).
    Days with messages in the `lookback` window are compared with their stored fingerprint; a
    day marked stale (an edit or a delete touched it) is due however old it is, and also when
    every message of it was deleted, so deleted words leave its summary. Days whose close
    failed for good within FAILED_RETRY_AFTER are left alone (an admin sees them held in the
    queue), so a broken day cannot retry on every sweep forever.
    """
    queue = db_settings().qualified.queue_table
    rows = await db.fetch(
        f"""
        WITH live AS (
            SELECT m.guild_id, (m.created_at AT TIME ZONE coalesce(g.timezone, $2))::date AS day,
                   count(*) AS n, max(m.message_id) AS max_id,
                   (min($1::timestamptz) AT TIME ZONE coalesce(g.timezone, $2))::date AS today,
                   (min($3::timestamptz) AT TIME ZONE coalesce(g.timezone, $2))::date AS first
            FROM messages m LEFT JOIN guilds g ON g.guild_id = m.guild_id
            WHERE m.created_at >= $3 AND m.created_at < $1 AND NOT m.deleted
              AND {shared_source("m")}
            GROUP BY m.guild_id, g.timezone, 2
        ),
        due AS (
            SELECT l.guild_id, l.day
            FROM live l
            LEFT JOIN summary_days s ON s.guild_id = l.guild_id AND s.day = l.day
            WHERE l.day < l.today AND l.day > l.first  -- whole past days only
              AND {NEEDS_CLOSE.format(s="s", n="l.n", max_id="l.max_id", now="$1")}
            UNION
            SELECT s.guild_id, s.day
            FROM summary_days s LEFT JOIN guilds g ON g.guild_id = s.guild_id
            WHERE s.stale AND s.day < ($1::timestamptz AT TIME ZONE coalesce(g.timezone, $2))::date
        )
        SELECT d.guild_id, d.day
        FROM due d
        WHERE NOT EXISTS (
              SELECT 1 FROM {queue} q
              WHERE q.dedupe_key = 'close_day:' || d.guild_id || ':' || d.day::text
                AND q.status = 'failed' AND q.updated > $1 - $4::interval)
        ORDER BY d.day, d.guild_id
        LIMIT $5
        """,
        now,
        default_timezone,
        now - lookback,
        FAILED_RETRY_AFTER,
        limit,
    )
    return [(row["guild_id"], row["day"]) for row in rows]
