"""What a recalled message needs around it: its neighbours in the channel, the names of
channels, the guild's time zone, and the statements forgotten in the guild (none of which may
come back through a search, whoever asks)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from db.recall import Exclusions
from db.rows import by_column, fetch_as
from db.types import Executor

# A neighbour further than this from its hit in time is another conversation.
NEIGHBOUR_HOURS = 6


@dataclass(frozen=True, slots=True)
class Neighbour:
    hit_id: int  # the recalled message it sits next to
    side: str  # "before" or "after"
    message_id: int
    channel_id: int
    author_id: int
    created_at: datetime
    content: str


_NEIGHBOURS = f"""
    SELECT h.hit_id, n.side, n.message_id, n.channel_id, n.author_id, n.created_at, n.content
    FROM unnest($2::bigint[], $3::bigint[], $4::timestamptz[]) AS h(hit_id, channel_id, at)
    CROSS JOIN LATERAL (
        (SELECT 'before' AS side, m.message_id, m.channel_id, m.author_id, m.created_at,
                m.content
         FROM messages m
         WHERE m.channel_id = h.channel_id AND m.message_id < h.hit_id AND {{keep}}
           AND m.created_at >= h.at - interval '{NEIGHBOUR_HOURS} hours'
         ORDER BY m.message_id DESC LIMIT 1)
        UNION ALL
        (SELECT 'after', m.message_id, m.channel_id, m.author_id, m.created_at, m.content
         FROM messages m
         WHERE m.channel_id = h.channel_id AND m.message_id > h.hit_id AND {{keep}}
           AND m.created_at <= h.at + interval '{NEIGHBOUR_HOURS} hours'
         ORDER BY m.message_id LIMIT $8)
    ) n
""".format(
    keep="m.guild_id = $1 AND NOT m.deleted AND m.content <> ''"
    " AND m.message_id <> ALL($5::bigint[])"
    " AND ($6::bigint IS NULL OR (m.author_id <> $6 AND NOT $6 = ANY(m.mention_ids)))"
    " AND ($7::text IS NULL OR m.content !~* $7)"
)


async def neighbours(
    db: Executor,
    guild_id: int,
    hits: Sequence[tuple[int, int, datetime]],
    exclude: Exclusions,
    after: int = 1,
) -> list[Neighbour]:
    """The message before and the `after` ones after each (message id, channel id, time) in
    its channel, within NEIGHBOUR_HOURS, skipping what `exclude` names (the same channel: the
    viewer may read it since it may read the hit)."""
    if not hits:
        return []
    return await fetch_as(
        db,
        Neighbour,
        _NEIGHBOURS,
        guild_id,
        *by_column(hits),
        *exclude.arguments(),
        after,
    )


async def guild_forgotten(db: Executor, guild_id: int) -> tuple[dict[int, list[str]], str | None]:
    """Every statement forgotten in the guild, by the member it was about, and the guild's
    time zone (one round trip)."""
    rows = await db.fetch(
        "SELECT user_id, statement, (SELECT timezone FROM guilds WHERE guild_id = $1) AS zone"
        " FROM forgotten_statements WHERE guild_id = $1"
        " UNION ALL SELECT NULL, NULL, (SELECT timezone FROM guilds WHERE guild_id = $1)",
        guild_id,
    )
    found: dict[int, list[str]] = {}
    for row in rows:
        if row["user_id"] is not None:
            found.setdefault(row["user_id"], []).append(row["statement"])
    return found, rows[-1]["zone"]


async def channel_names(
    db: Executor, guild_id: int, channel_ids: Sequence[int]
) -> dict[int, str] | None:
    """Names of the channels by id: from imports and Discord (`channel_names`), else as the bot
    last saw them in `channel_visibility`; channels without a known name are left out."""
    if not channel_ids:
        return {}
    rows = await db.fetch(
        """
        SELECT ids.channel_id, coalesce(n.name, v.name) AS name
        FROM unnest($2::bigint[]) AS ids(channel_id)
        LEFT JOIN channel_names n ON n.guild_id = $1 AND n.channel_id = ids.channel_id
        LEFT JOIN channel_visibility v ON v.guild_id = $1 AND v.channel_id = ids.channel_id
        WHERE coalesce(n.name, v.name) IS NOT NULL
        """,
        guild_id,
        list(channel_ids),
    )
    return {row["channel_id"]: row["name"] for row in rows}
