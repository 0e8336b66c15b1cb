"""The configured database as every front end opens it: embedded or DATABASE_URL, migrated,
checked, served to a shell, the shards this process holds on it, and the slash-command tree
last synced from it.

Its own package (below the wiring) so that what a front end may do with the database itself
(`memorybot db`, `health`, `migrate`, the banner's one line) needs no service opened.
"""

from memory.database._command_syncs import CommandSyncs
from memory.database._open import (
    DatabaseUnavailable,
    check_database,
    describe_database,
    embedded_exists,
    migrate_database,
    open_configured_database,
    serve_database,
)
from memory.database._shards import ShardTaken, hold_shards

__all__ = [
    "CommandSyncs",
    "DatabaseUnavailable",
    "ShardTaken",
    "check_database",
    "describe_database",
    "embedded_exists",
    "hold_shards",
    "migrate_database",
    "open_configured_database",
    "serve_database",
]
