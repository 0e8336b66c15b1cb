"""Which channels' episodes everyone may read: the one place the digest asks.

Until the channel visibility table (V014, `visibility` work) is merged here, every channel is
public except those a guild ignores. The lead wires `public_channel_ids` to that table at
merge: nothing else in this package decides visibility.
"""

from __future__ import annotations

from collections.abc import Iterable

import asyncpg


async def public_channel_ids(
    db: asyncpg.Pool | asyncpg.Connection, guild_id: int, channel_ids: Iterable[int]
) -> frozenset[int]:
    """The channels among `channel_ids` that every member of the guild can read."""
    del db, guild_id  # read from the visibility table once it exists (see the module doc)
    return frozenset(channel_ids)
