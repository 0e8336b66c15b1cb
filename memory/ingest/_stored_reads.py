"""What a backfill reads of what is already stored, after the writer's queue is flushed so
that queued messages count as stored: where each channel's backfill picks up, and which
stored messages a reconcile compares with what Discord still returns.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from db import messages as message_store
from memory.ingest._writer import BatchedWriter


class StoredMessages:
    """Reads of stored messages that wait for the writer first."""

    def __init__(self, writer: BatchedWriter, pool: asyncpg.Pool) -> None:
        self._writer = writer
        self._pool = pool

    async def last_stored_ids(self, guild_id: int, channel_ids: Sequence[int]) -> dict[int, int]:
        """Newest stored message id per channel of a guild: where a backfill picks up."""
        await self._writer.flush()
        return await message_store.last_message_ids(self._pool, guild_id, channel_ids)

    async def stored_message_ids(
        self, guild_id: int, channel_id: int, *, after_id: int, up_to_id: int
    ) -> list[int]:
        """Ids of a channel's stored, not deleted messages in (after_id, up_to_id]."""
        await self._writer.flush()
        return await message_store.stored_ids(self._pool, guild_id, channel_id, after_id, up_to_id)
