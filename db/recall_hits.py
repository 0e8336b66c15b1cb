"""What a recalled message needs around it: the names of channels, the guild's time zone, and
the statements forgotten in the guild (none of which may come back through a search, whoever
asks). Its lines around it, its exchange, are read by db/recall_exchange.py."""

from __future__ import annotations

from collections.abc import Sequence

from db.types import Executor

# A neighbour further than this from its hit in time is another conversation.
NEIGHBOUR_HOURS = 6


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
