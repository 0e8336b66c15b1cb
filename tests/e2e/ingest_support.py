"""What the end-to-end ingest tests share (test_ingest_e2e.py, test_catch_up_e2e.py)."""

from __future__ import annotations

import asyncpg

# The bot with only the cog that stores what members say.
INGEST_ONLY = ["bot.cogs.ingest"]


async def stored_ids(pool: asyncpg.Pool) -> list[int]:
    """Ids of every stored message, oldest first."""
    rows = await pool.fetch("SELECT message_id FROM messages ORDER BY message_id")
    return [row["message_id"] for row in rows]
