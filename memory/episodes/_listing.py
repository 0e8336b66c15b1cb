"""The one read of a guild's episodes that lists, narrowed to what a viewer may read: used by
`EpisodeService.listing` (catch-up, `/memory episodes`, the CLI) and a reply's asked episodes."""

from __future__ import annotations

from datetime import date

import asyncpg

from db import episode_reads as reads
from memory.core.viewer import Viewer
from memory.episodes._digest import day_bounds


def readable_ids(viewer: Viewer | None) -> list[int] | None:
    """The viewer's channels as the queries take them (None: every channel)."""
    if viewer is None or viewer.channel_ids is None:
        return None
    return sorted(viewer.channel_ids)


async def listing_rows(
    pool: asyncpg.Pool,
    guild_id: int,
    *,
    channel_id: int | None,
    days: tuple[date, date] | None,
    timezone: str,
    viewer: Viewer | None,
    limit: int,
    biggest: bool = False,
) -> list[asyncpg.Record]:
    """Episodes newest first (with `biggest`, each day's biggest first, then each day's next):
    of one channel or all, of [first day, day after the last) (guild time) or any."""
    start, end = (
        (day_bounds(days[0], timezone)[0], day_bounds(days[1], timezone)[0])
        if days is not None
        else (None, None)
    )
    return await reads.listing(
        pool,
        guild_id,
        channel_id=channel_id,
        start=start,
        end=end,
        channel_ids=readable_ids(viewer),
        limit=limit,
        biggest=biggest,
        timezone=timezone,
    )
