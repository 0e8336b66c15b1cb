"""Queries of merged contexts: each member's last known good context, keyed by the content
hash of what it was built from (so a restart merges nothing that did not change)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import asyncpg

from db.rows import fetch_column, from_row
from db.types import Executor


@dataclass(frozen=True, slots=True)
class MergedContext:
    context: str
    content_hash: str
    sources: dict[str, Any]
    computed_at: datetime


async def get_merged_context(db: Executor, guild_id: int, user_id: int) -> MergedContext | None:
    """The member's last known good context, whatever inputs it was built from."""
    row = await db.fetchrow(
        "SELECT context, content_hash, sources, computed_at FROM merged_contexts"
        " WHERE guild_id = $1 AND user_id = $2",
        guild_id,
        user_id,
    )
    return None if row is None else merged_from_row(row)


def merged_from_row(row: asyncpg.Record) -> MergedContext:
    """The context in a row with its columns (`db.stored_memory` reads it with the rest)."""
    sources = row["sources"]
    if isinstance(sources, str):  # a pool without the jsonb codec
        sources = json.loads(sources)
    return from_row(MergedContext, row, sources=sources or {})


async def save_merged_context(
    db: Executor,
    guild_id: int,
    user_id: int,
    context: str,
    content_hash: str,
    sources: dict[str, Any],
) -> None:
    await db.execute(
        """
        INSERT INTO merged_contexts (guild_id, user_id, context, content_hash, sources)
        VALUES ($1, $2, $3, $4, $5::jsonb)
        ON CONFLICT (guild_id, user_id) DO UPDATE SET
            context = EXCLUDED.context, content_hash = EXCLUDED.content_hash,
            sources = EXCLUDED.sources, computed_at = now()
        """,
        guild_id,
        user_id,
        context,
        content_hash,
        sources,
    )


async def members_with_context(db: Executor, guild_id: int, since: date) -> list[int]:
    """Members of the guild the bot built a context for on `since` or later (the day each was
    built for, in the guild's time): the members it is being asked about."""
    return await fetch_column(
        db,
        "SELECT user_id FROM merged_contexts WHERE guild_id = $1 AND (sources->>'day')::date >= $2",
        guild_id,
        since,
    )
