"""Which channels' episodes everyone may read: the one place the digest asks.

A digest is posted where anyone may read it, so it draws only from channels @everyone can
view: those the channel visibility table (V014, kept by the bot from Discord permissions, or
marked by an admin) does not list as restricted. Unknown channels (imports) count as public,
as they do for shared memory; `memory_sources=all` does not widen a digest.
"""

from __future__ import annotations

from collections.abc import Iterable

import asyncpg

from db.types import Connection
from db.visibility import restricted_channels


async def public_channel_ids(
    db: asyncpg.Pool | Connection, guild_id: int, channel_ids: Iterable[int]
) -> frozenset[int]:
    """The channels among `channel_ids` that every member of the guild can read."""
    restricted = await restricted_channels(db, guild_id)
    return frozenset(channel_id for channel_id in channel_ids if channel_id not in restricted)
