"""The slash-command tree is synced again only when it changed (Discord rate-limits syncs), per
scope, and what was synced survives a restart (it is in the database, not the process)."""

from __future__ import annotations

import asyncpg

from memory.database import CommandSyncs


async def test_an_unchanged_tree_is_not_synced_again(db_pool: asyncpg.Pool) -> None:
    first = CommandSyncs(db_pool)
    assert await first.needed("global", "tree-1")
    await first.synced("global", "tree-1")

    restarted = CommandSyncs(db_pool)
    assert not await restarted.needed("global", "tree-1")
    assert await restarted.needed("global", "tree-2")  # a changed tree
    assert await restarted.needed("4242", "tree-1")  # another scope: its own sync
