"""Which days a summary may be asked for: none in the future, none before anything stored."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import asyncpg

from db.summaries import stored_span
from memory.core.clock import local_day


class DayOutOfRange(ValueError):
    """A day to summarise that has nothing to summarise: future, or older than what is kept."""


async def check_asked_day(
    pool: asyncpg.Pool, guild_id: int, day: date, now: datetime, timezone: str
) -> None:
    """Raise DayOutOfRange, with the range that works, for a day nothing can be said about."""
    today = local_day(now, timezone)
    if day > today:
        raise DayOutOfRange(f"{day} is in the future (today is {today}, {timezone})")
    first_message, first_summary = await stored_span(pool, guild_id)
    firsts = [d for d in (first_summary,) if d is not None]
    if first_message is not None:
        firsts.append(local_day(first_message, timezone))
    if not firsts:
        raise DayOutOfRange("nothing is stored for this guild yet: import or chat first")
    if day < min(firsts):
        raise DayOutOfRange(
            f"{day} is before anything stored: use a day from {min(firsts)} to {today}"
        )


async def stored_days(
    pool: asyncpg.Pool, guild_id: int, now: datetime, timezone: str
) -> tuple[date, date] | None:
    """The first day with a stored message and yesterday (the days that can be closed)."""
    first_message, _ = await stored_span(pool, guild_id)
    if first_message is None:
        return None
    return local_day(first_message, timezone), local_day(now, timezone) - timedelta(days=1)
