"""Guild rows: name, timezone (day boundaries of summaries) and per-guild settings."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from db.rows import by_column, fetch_column
from db.types import Connection, Executor, fetch_one


async def ensure_guild(
    db: Executor, guild_id: int, name: str | None = None, *, timezone: str = "UTC"
) -> None:
    """Create the guild row if missing (with `timezone`), refresh its name if given.

    An existing timezone is never overwritten here: it is an admin's choice.
    """
    await ensure_guilds(db, [(guild_id, name)], timezone=timezone)


async def ensure_guilds(
    db: Executor, guilds: Iterable[tuple[int, str | None]], *, timezone: str = "UTC"
) -> None:
    """`ensure_guild` for many (guild id, name) pairs in one statement."""
    pairs = list(guilds)
    if not pairs:
        return
    await db.execute(
        """
        INSERT INTO guilds AS g (guild_id, name, timezone)
        SELECT guild_id, name, $3 FROM unnest($1::bigint[], $2::text[]) AS t(guild_id, name)
        ON CONFLICT (guild_id) DO UPDATE SET
            name = EXCLUDED.name, updated_at = now()
        WHERE EXCLUDED.name IS NOT NULL AND EXCLUDED.name IS DISTINCT FROM g.name
        """,
        [guild_id for guild_id, _ in pairs],
        [name for _, name in pairs],
        timezone,
    )


async def get_timezone(db: Executor, guild_id: int, default: str = "UTC") -> str:
    """The guild's timezone, or `default` when the guild has no row yet."""
    value = await db.fetchval("SELECT timezone FROM guilds WHERE guild_id = $1", guild_id)
    return value or default


async def set_timezone(db: Executor, guild_id: int, timezone: str) -> None:
    await db.execute(
        """
        INSERT INTO guilds (guild_id, timezone) VALUES ($1, $2)
        ON CONFLICT (guild_id) DO UPDATE SET timezone = $2, updated_at = now()
        """,
        guild_id,
        timezone,
    )


async def get_settings(db: Executor, guild_id: int) -> dict[str, Any]:
    """Per-guild overrides (jsonb); empty when none are set or the guild is unknown."""
    value = await db.fetchval("SELECT settings FROM guilds WHERE guild_id = $1", guild_id)
    if isinstance(value, str):  # a connection without the jsonb codec
        value = json.loads(value)
    return dict(value or {})


async def lock_settings(
    connection: Connection, guild_id: int, *, default_timezone: str = "UTC"
) -> tuple[str, dict[str, Any]]:
    """(timezone, settings) of the guild, row-locked until the transaction ends; the row is
    created when missing (with `default_timezone`) so two admins changing settings at once
    take turns."""
    await connection.execute(
        "INSERT INTO guilds (guild_id, timezone) VALUES ($1, $2) ON CONFLICT (guild_id) DO NOTHING",
        guild_id,
        default_timezone,
    )
    row = await fetch_one(
        connection, "SELECT timezone, settings FROM guilds WHERE guild_id = $1 FOR UPDATE", guild_id
    )
    value = row["settings"]
    if isinstance(value, str):  # a connection without the jsonb codec
        value = json.loads(value)
    return row["timezone"], dict(value or {})


async def replace_settings(
    db: Executor, guild_id: int, *, timezone: str, settings: dict[str, Any]
) -> None:
    """Store the guild's timezone and settings jsonb as given (after `lock_settings`)."""
    await db.execute(
        """
        INSERT INTO guilds (guild_id, timezone, settings) VALUES ($1, $2, $3::text::jsonb)
        ON CONFLICT (guild_id) DO UPDATE SET
            timezone = EXCLUDED.timezone, settings = EXCLUDED.settings, updated_at = now()
        """,
        guild_id,
        timezone,
        json.dumps(settings),
    )


async def guild_names(db: Executor, guild_ids: Iterable[int]) -> dict[int, str]:
    """id -> stored name for the guilds that have one (telemetry tail shows names)."""
    rows = await db.fetch(
        "SELECT guild_id, name FROM guilds WHERE guild_id = ANY($1::bigint[]) AND name IS NOT NULL",
        list(guild_ids),
    )
    return {row["guild_id"]: row["name"] for row in rows}


async def ensure_channel_names(db: Executor, channels: Iterable[tuple[int, int, str]]) -> None:
    """Store (guild id, channel id, name) triples; a renamed channel gets its new name."""
    rows = [(guild_id, channel_id, name) for guild_id, channel_id, name in channels if name]
    if not rows:
        return
    await db.execute(
        """
        INSERT INTO channel_names AS c (guild_id, channel_id, name)
        SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])
        ON CONFLICT (guild_id, channel_id) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
        WHERE EXCLUDED.name IS DISTINCT FROM c.name
        """,
        *by_column(rows),
    )


async def channel_names(db: Executor, guild_id: int, channel_ids: Iterable[int]) -> dict[int, str]:
    """The known names of these channels of the guild (unknown ones are absent)."""
    rows = await db.fetch(
        "SELECT channel_id, name FROM channel_names WHERE guild_id = $1"
        " AND channel_id = ANY($2::bigint[])",
        guild_id,
        sorted(set(channel_ids)),
    )
    return {row["channel_id"]: row["name"] for row in rows}


async def channels_named(db: Executor, guild_id: int, name: str) -> list[int]:
    """Ids of the guild's channels called `name` (case-insensitive, a leading # ignored), as
    imports and Discord named them."""
    return await fetch_column(
        db,
        "SELECT channel_id FROM channel_names WHERE guild_id = $1 AND lower(name) = lower($2)"
        " UNION SELECT channel_id FROM channel_visibility"
        " WHERE guild_id = $1 AND lower(name) = lower($2) ORDER BY 1",
        guild_id,
        name.strip().lstrip("#"),
    )


async def guild_channels(db: Executor, guild_id: int) -> dict[int, str]:
    """Every channel of the guild an import, Discord or a visibility mark named: id -> name
    (the id as text where only a mark without a name knows it)."""
    rows = await db.fetch(
        "SELECT channel_id, name FROM channel_names WHERE guild_id = $1"
        " UNION ALL SELECT channel_id, coalesce(name, channel_id::text) FROM channel_visibility v"
        " WHERE guild_id = $1 AND NOT EXISTS ("
        "   SELECT 1 FROM channel_names n WHERE n.channel_id = v.channel_id)",
        guild_id,
    )
    return {row["channel_id"]: row["name"] for row in rows}
