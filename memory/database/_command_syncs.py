"""Which slash-command tree was last synced to each scope (global, or a guild), kept in
`bot_state`: Discord rate-limits syncs, so a start with an unchanged tree does not sync again."""

from __future__ import annotations

import asyncpg

from db.state import get_state, set_state


class CommandSyncs:
    """The hash of the command tree last synced per scope, across restarts and processes."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def needed(self, scope: str, tree_hash: str) -> bool:
        """Whether the tree (its hash) differs from what was last synced to `scope`."""
        return await get_state(self._pool, _key(scope)) != tree_hash

    async def synced(self, scope: str, tree_hash: str) -> None:
        """The tree of this hash was synced to `scope`."""
        await set_state(self._pool, _key(scope), tree_hash)


def _key(scope: str) -> str:
    return f"command_tree:{scope}"
