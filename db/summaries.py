"""Queries of the transient memory hierarchy: day fingerprints and daily summaries (historical
summaries live in db/historical.py, merged contexts in db/contexts.py).

A summarised day is valid while its stored fingerprint (live message count and max message id)
matches the messages table and nobody marked it stale (edits and deletes do).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from db.messages import message_from_row
from db.rows import from_row
from db.types import Connection, Executor, fetch_one
from db.visibility import shared_source
from memory.core.models import ChatMessage, Member

_log = logging.getLogger(__name__)


_MESSAGE_COLUMNS = (
    "message_id, guild_id, channel_id, author_id, content, created_at, reply_to_id,"
    " mention_ids, author_is_bot, edited_at, deleted"
)


@dataclass(frozen=True, slots=True)
class DayState:
    """A day as the messages table sees it now, next to what was stored when it was summarised."""

    day: date
    message_count: int
    max_message_id: int | None
    stored_count: int | None = None
    stored_max_id: int | None = None
    stale: bool = False
    # A fallback provider wrote this day and its retry time has come: try the primary again.
    retry_due: bool = False
    # NEEDS_CLOSE as the query saw it: the stored summaries no longer describe these messages.
    due: bool = False

    @property
    def stored(self) -> bool:
        return self.stored_count is not None

    @property
    def fresh(self) -> bool:
        """True when the stored summaries still describe exactly these messages."""
        return not self.due

    @property
    def expired(self) -> bool:
        """Stored, not marked stale, yet fewer messages live than it was made from: they were
        removed without touching the summary, which only retention does (edits, deletes and
        purges mark the day stale). The stored summary is all that is left of the day."""
        return (
            self.stored_count is not None
            and not self.stale
            and self.message_count < self.stored_count
        )

    @property
    def reason(self) -> str:
        """Why the day needs summarising (for telemetry)."""
        if not self.stored:
            return "missing"
        if self.stale:
            return "stale"
        if self.retry_due:
            return "degraded"
        return "changed" if not self.fresh else "fresh"


async def guild_timezone(db: Executor, guild_id: int) -> str | None:
    """The guild's configured timezone, or None when the guild has no row."""
    value: str | None = await db.fetchval(
        "SELECT timezone FROM guilds WHERE guild_id = $1", guild_id
    )
    return value


# When a day must be closed (again), in SQL, so the worker's sweep (db/jobs.due_days) and a
# request (day_states) decide it the same way: `s` is the day's summary_days row (all NULL when
# it was never stored), `n` and `max_id` its live message count and newest id, `now` the time a
# degraded day's retry is compared with. Nothing said and nothing stored: nothing to do.
NEEDS_CLOSE = """
    CASE WHEN {s}.guild_id IS NULL THEN {n} > 0
         ELSE {s}.stale OR coalesce({s}.retry_after <= {now}, false)
              OR {s}.message_count <> {n} OR {s}.max_message_id IS DISTINCT FROM {max_id}
    END
"""


async def day_states(
    db: Executor,
    guild_id: int,
    days: Sequence[date],
    timezone: str,
    start: datetime,
    end: datetime,
) -> dict[date, DayState]:
    """Live fingerprint and stored state of each day, in one round trip.

    `start`/`end` are the UTC bounds covering all `days` in `timezone`; grouping by the local
    date in SQL keeps the day boundaries identical to `memory.core.clock.day_bounds`.
    """
    rows = await db.fetch(
        f"""
        WITH live AS (
            SELECT (created_at AT TIME ZONE $2)::date AS day, count(*) AS n,
                   max(message_id) AS max_id
            FROM messages m
            WHERE guild_id = $1 AND created_at >= $3 AND created_at < $4 AND NOT deleted
              AND {shared_source("m")}
            GROUP BY 1
        )
        SELECT d.day, coalesce(l.n, 0) AS n, l.max_id, s.message_count, s.max_message_id,
               coalesce(s.stale, false) AS stale,
               coalesce(s.retry_after <= now(), false) AS retry_due,
               {NEEDS_CLOSE.format(s="s", n="coalesce(l.n, 0)", max_id="l.max_id", now="now()")}
                   AS due
        FROM unnest($5::date[]) AS d(day)
        LEFT JOIN live l ON l.day = d.day
        LEFT JOIN summary_days s ON s.guild_id = $1 AND s.day = d.day
        """,
        guild_id,
        timezone,
        start,
        end,
        list(days),
    )
    return {
        # The live counts are `n` and `max_id`; `message_count` and `max_message_id` are the
        # stored summary's.
        row["day"]: from_row(
            DayState,
            row,
            message_count=row["n"],
            max_message_id=row["max_id"],
            stored_count=row["message_count"],
            stored_max_id=row["max_message_id"],
        )
        for row in rows
    }


async def day_messages(
    db: Executor, guild_id: int, start: datetime, end: datetime
) -> list[ChatMessage]:
    """The guild's live (not deleted) messages in [start, end), in time order: those that may
    feed shared memory (public channels, unless the guild's memory_sources is `all`)."""
    rows = await db.fetch(
        f"""
        SELECT {_MESSAGE_COLUMNS} FROM messages m
        WHERE guild_id = $1 AND created_at >= $2 AND created_at < $3 AND NOT deleted
          AND {shared_source("m")}
        ORDER BY created_at, message_id
        """,
        guild_id,
        start,
        end,
    )
    return [message_from_row(row) for row in rows]


async def daily_summaries(db: Executor, guild_id: int, day: date) -> dict[int, str]:
    """Every member's stored summary of one day (empty string: nothing to say)."""
    rows = await db.fetch(
        "SELECT user_id, summary FROM daily_summaries WHERE guild_id = $1 AND day = $2",
        guild_id,
        day,
    )
    return {row["user_id"]: row["summary"] for row in rows}


async def member_daily_summaries(
    db: Executor, guild_id: int, user_id: int, first: date, last: date
) -> list[tuple[date, str]]:
    """One member's non-empty daily summaries between two days (inclusive), oldest first."""
    rows = await db.fetch(
        """
        SELECT day, summary FROM daily_summaries
        WHERE guild_id = $1 AND user_id = $2 AND day BETWEEN $3 AND $4 AND summary <> ''
        ORDER BY day
        """,
        guild_id,
        user_id,
        first,
        last,
    )
    return [(row["day"], row["summary"]) for row in rows]


async def clear_stale(connection: Connection, guild_id: int, day: date) -> bool:
    """Clear the day's stale flag before recomputing; True when it was set.

    Clearing first means an edit that lands while the LLM works sets it again and survives the
    save (which keeps whatever flag is there by then).
    """
    cleared = await connection.fetchval(
        "UPDATE summary_days SET stale = false WHERE guild_id = $1 AND day = $2 AND stale"
        " RETURNING true",
        guild_id,
        day,
    )
    return bool(cleared)


async def mark_day_stale(db: Executor, guild_id: int, day: date) -> bool:
    """Mark one summarised day for recomputation; True when a stored day was marked."""
    marked = await db.fetchval(
        "UPDATE summary_days SET stale = true WHERE guild_id = $1 AND day = $2 RETURNING true",
        guild_id,
        day,
    )
    return bool(marked)


async def save_day(
    connection: Connection,
    guild_id: int,
    day: date,
    *,
    message_count: int,
    max_message_id: int | None,
    provider: str | None,
    summaries: dict[int, str],
    retry_in: timedelta | None = None,
) -> None:
    """Replace the day's summaries; empty summaries are stored as "nothing to say".
    `retry_in` marks a fallback's result, to be redone by the primary provider after that long
    (database time, so a fixed `--now` clock cannot make it due at once)."""
    async with connection.transaction():
        await connection.execute(
            """
            INSERT INTO summary_days (guild_id, day, message_count, max_message_id, stale,
                                      provider, computed_at, retry_after)
            VALUES ($1, $2, $3, $4, false, $5, now(), now() + $6::interval)
            ON CONFLICT (guild_id, day) DO UPDATE SET
                message_count = EXCLUDED.message_count,
                max_message_id = EXCLUDED.max_message_id,
                provider = EXCLUDED.provider,
                computed_at = now(),
                retry_after = EXCLUDED.retry_after
            """,
            guild_id,
            day,
            message_count,
            max_message_id,
            provider,
            retry_in,
        )
        await connection.execute(
            "DELETE FROM daily_summaries WHERE guild_id = $1 AND day = $2", guild_id, day
        )
        if summaries:
            # Checked at write time, like every write about a member: not for one who opted out.
            await connection.executemany(
                "INSERT INTO daily_summaries (guild_id, day, user_id, summary)"
                " SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM member_consent c"
                " WHERE c.guild_id = $1 AND c.user_id = $3 AND c.state = 'out')",
                [(guild_id, day, user_id, text) for user_id, text in sorted(summaries.items())],
            )


async def forgotten_in_guild(db: Executor, guild_id: int) -> list[tuple[Member, list[str]]]:
    """Every member of the guild with forgotten statements, with their names (for filtering
    other members' summaries that repeat a forgotten statement about them)."""
    rows = await db.fetch(
        """
        SELECT f.user_id, array_agg(f.statement ORDER BY f.id) AS statements,
               m.username, m.global_name, m.nickname, coalesce(m.aliases, '{}') AS aliases
        FROM forgotten_statements f
        LEFT JOIN members m ON m.guild_id = f.guild_id AND m.user_id = f.user_id
        WHERE f.guild_id = $1
        GROUP BY f.user_id, m.username, m.global_name, m.nickname, m.aliases
        ORDER BY f.user_id
        """,
        guild_id,
    )
    return [
        (
            Member(
                guild_id=guild_id,
                user_id=row["user_id"],
                username=row["username"],
                global_name=row["global_name"],
                nickname=row["nickname"],
                aliases=tuple(row["aliases"]),
            ),
            list(row["statements"]),
        )
        for row in rows
    ]


async def stored_span(db: Executor, guild_id: int) -> tuple[datetime | None, date | None]:
    """The oldest stored message's time and the oldest stored day summary of a guild."""
    row = await fetch_one(
        db,
        "SELECT (SELECT min(created_at) FROM messages WHERE guild_id = $1) AS first_message,"
        " (SELECT min(day) FROM daily_summaries WHERE guild_id = $1) AS first_day",
        guild_id,
    )
    return row["first_message"], row["first_day"]
