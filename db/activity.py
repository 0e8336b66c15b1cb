"""Read-only counts for the admin's dashboard: guilds at a glance and messages per local day.

Counts only, never content: the dashboard draws them. Messages per day sum the quarter-hour
counts the `message_counts` triggers keep (V025): a month is about 3,000 rows however many
messages it holds, where counting the messages themselves visits a million index entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from db.rows import fetch_as, fetch_column
from db.types import Executor


@dataclass(frozen=True, slots=True)
class GuildRow:
    guild_id: int
    name: str | None
    timezone: str
    members: int


async def guild_rows(db: Executor) -> list[GuildRow]:
    """Every known guild with its member count, by name."""
    return await fetch_as(
        db,
        GuildRow,
        """
        SELECT g.guild_id, g.name, g.timezone,
               (SELECT count(*) FROM members m WHERE m.guild_id = g.guild_id) AS members
        FROM guilds g ORDER BY lower(coalesce(g.name, '')), g.guild_id
        """,
    )


async def guild_row(db: Executor, guild_id: int) -> GuildRow | None:
    """One known guild (named or not, as the console's) with its member count."""
    row = await db.fetchrow(
        """
        SELECT g.guild_id, g.name, g.timezone,
               (SELECT count(*) FROM members m WHERE m.guild_id = g.guild_id) AS members
        FROM guilds g WHERE g.guild_id = $1
        """,
        guild_id,
    )
    return GuildRow(**dict(row)) if row is not None else None


async def first_message_at(db: Executor, guild_id: int) -> datetime | None:
    """The quarter hour of the guild's oldest stored message (None when it has none)."""
    value: datetime | None = await db.fetchval(
        "SELECT min(bucket) FROM message_counts WHERE guild_id = $1 AND messages > 0", guild_id
    )
    return value


async def messages_per_day(
    db: Executor, guild_id: int, start: datetime, end: datetime, timezone: str
) -> dict[date, int]:
    """Stored messages of one guild per local day in [start, end) (local midnights: whole
    quarter hours in every time zone in use)."""
    rows = await db.fetch(
        """
        SELECT (bucket AT TIME ZONE $4)::date AS day, sum(messages) AS n
        FROM message_counts WHERE guild_id = $1 AND bucket >= $2 AND bucket < $3
        GROUP BY 1
        """,
        guild_id,
        start,
        end,
        timezone,
    )
    return {row["day"]: int(row["n"]) for row in rows}


async def fact_sources(db: Executor, guild_id: int, message_ids: list[int]) -> dict[int, int]:
    """message id -> channel id of stored messages, for jump links to a fact's provenance."""
    if not message_ids:
        return {}
    rows = await db.fetch(
        "SELECT message_id, channel_id FROM messages"
        " WHERE guild_id = $1 AND message_id = ANY($2::bigint[])",
        guild_id,
        message_ids,
    )
    return {row["message_id"]: row["channel_id"] for row in rows}


async def opted_out(db: Executor, guild_id: int) -> list[int]:
    """Members of the guild who opted out (nothing else of theirs is held)."""
    return await fetch_column(
        db,
        "SELECT user_id FROM member_consent WHERE guild_id = $1 AND state = 'out'"
        " ORDER BY changed_at",
        guild_id,
    )
