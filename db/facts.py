"""Factual memory queries: the per-member blob, its history and forgotten statements.

Reads here are shared by the facts service and the context builder; writes belong to the
facts service, which serialises them per member.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

Executor = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True, slots=True)
class FactRecord:
    guild_id: int
    user_id: int
    blob: str
    version: int
    updated_at: datetime


async def get_facts(db: Executor, guild_id: int, user_id: int) -> FactRecord | None:
    """The member's blob, or None when nothing was ever remembered about them."""
    row = await db.fetchrow(
        "SELECT guild_id, user_id, blob, version, updated_at FROM user_facts"
        " WHERE guild_id = $1 AND user_id = $2",
        guild_id,
        user_id,
    )
    if row is None:
        return None
    return FactRecord(
        row["guild_id"], row["user_id"], row["blob"], row["version"], row["updated_at"]
    )


async def get_forgotten(db: Executor, guild_id: int, user_id: int) -> list[str]:
    """Statements deliberately forgotten about the member, oldest first."""
    rows = await db.fetch(
        "SELECT statement FROM forgotten_statements WHERE guild_id = $1 AND user_id = $2"
        " ORDER BY id",
        guild_id,
        user_id,
    )
    return [row["statement"] for row in rows]
