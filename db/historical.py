"""Historical summaries: one narrative per member and end day, rolled forward from the
member's latest stored one (days 2-7 of the hierarchy).
"""

from __future__ import annotations

from datetime import date

from db.types import Executor


async def get_historical(
    db: Executor, guild_id: int, user_id: int, end_day: date
) -> tuple[str, str] | None:
    """(summary, source_hash) of the member's days-2-7 narrative ending on `end_day`."""
    row = await db.fetchrow(
        "SELECT summary, source_hash FROM historical_summaries"
        " WHERE guild_id = $1 AND user_id = $2 AND end_day = $3",
        guild_id,
        user_id,
        end_day,
    )
    return (row["summary"], row["source_hash"]) if row else None


async def latest_historical(
    db: Executor, guild_id: int, user_id: int, not_after: date
) -> tuple[date, str] | None:
    """The most recent non-empty historical narrative ending on or before `not_after`."""
    row = await db.fetchrow(
        "SELECT end_day, summary FROM historical_summaries"
        " WHERE guild_id = $1 AND user_id = $2 AND end_day <= $3 AND summary <> ''"
        " ORDER BY end_day DESC LIMIT 1",
        guild_id,
        user_id,
        not_after,
    )
    return (row["end_day"], row["summary"]) if row else None


async def rollable_historical(
    db: Executor, guild_id: int, user_id: int, first: date, last: date
) -> tuple[date, str, str] | None:
    """(end day, summary, source_hash) of the member's latest non-empty narrative ending
    between `first` and `last`: the one a new narrative may be rolled forward from."""
    row = await db.fetchrow(
        "SELECT end_day, summary, source_hash FROM historical_summaries"
        " WHERE guild_id = $1 AND user_id = $2 AND end_day BETWEEN $3 AND $4"
        " AND summary <> '' ORDER BY end_day DESC LIMIT 1",
        guild_id,
        user_id,
        first,
        last,
    )
    return (row["end_day"], row["summary"], row["source_hash"]) if row else None


async def save_historical(
    db: Executor, guild_id: int, user_id: int, end_day: date, summary: str, source_hash: str
) -> None:
    await db.execute(
        """
        INSERT INTO historical_summaries (guild_id, user_id, end_day, summary, source_hash)
        VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (guild_id, user_id, end_day) DO UPDATE SET
            summary = EXCLUDED.summary, source_hash = EXCLUDED.source_hash, computed_at = now()
        """,
        guild_id,
        user_id,
        end_day,
        summary,
        source_hash,
    )
