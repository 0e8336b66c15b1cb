"""Factual memory queries: the per-member blob, its history and forgotten statements.

Reads here are shared by the facts service and the context builder; writes belong to the
facts service, which serialises them per member.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from db.rows import execute_counted, fetch_as, fetch_one_as, from_row
from db.types import Connection, Executor, fetch_one


@dataclass(frozen=True, slots=True)
class FactRecord:
    guild_id: int
    user_id: int
    blob: str
    version: int
    updated_at: datetime


# The member's row, read (`get_facts`) or locked for a write (`lock_facts`).
_FACTS = (
    "SELECT guild_id, user_id, blob, version, updated_at FROM user_facts"
    " WHERE guild_id = $1 AND user_id = $2"
)


async def get_facts(db: Executor, guild_id: int, user_id: int) -> FactRecord | None:
    """The member's blob, or None when nothing was ever remembered about them."""
    return await fetch_one_as(db, FactRecord, _FACTS, guild_id, user_id)


async def get_forgotten(db: Executor, guild_id: int, user_id: int) -> list[str]:
    """Statements deliberately forgotten about the member, oldest first."""
    return [record.statement for record in await get_forgotten_records(db, guild_id, user_id)]


@dataclass(frozen=True, slots=True)
class HistoryRecord:
    id: int
    guild_id: int
    user_id: int
    version: int
    old_blob: str
    new_blob: str
    actor_id: int | None
    command: str
    statement: str | None
    source_message_id: int | None
    reverts_id: int | None
    created_at: datetime
    operation: str | None = None


@dataclass(frozen=True, slots=True)
class ForgottenRecord:
    id: int
    statement: str
    actor_id: int | None
    created_at: datetime


_HISTORY_COLUMNS = (
    "id, guild_id, user_id, version, old_blob, new_blob, actor_id, command, statement,"
    " source_message_id, reverts_id, created_at, operation"
)


def _history(row: asyncpg.Record) -> HistoryRecord:
    return from_row(HistoryRecord, row)


async def lock_facts(connection: Connection, guild_id: int, user_id: int) -> FactRecord:
    """Create the member's row if missing and lock it for the rest of the transaction.

    The insert comes first so there is always a row to lock: two first-ever writers for one
    member then queue on the same row instead of racing on the primary key.
    """
    await connection.execute(
        "INSERT INTO user_facts (guild_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        guild_id,
        user_id,
    )
    row = await fetch_one(connection, f"{_FACTS} FOR UPDATE", guild_id, user_id)
    return from_row(FactRecord, row)


async def write_blob(connection: Connection, guild_id: int, user_id: int, blob: str) -> int:
    """Store a new blob (the row must be locked by `lock_facts`); returns the new version."""
    value: int = await connection.fetchval(
        "UPDATE user_facts SET blob = $3, version = version + 1, updated_at = now()"
        " WHERE guild_id = $1 AND user_id = $2 RETURNING version",
        guild_id,
        user_id,
        blob,
    )
    return value


async def add_history(
    connection: Executor,
    *,
    guild_id: int,
    user_id: int,
    version: int,
    old_blob: str,
    new_blob: str,
    actor_id: int | None,
    command: str,
    statement: str | None,
    source_message_id: int | None,
    reverts_id: int | None = None,
    operation: str | None = None,
) -> int:
    """Append one change to the member's history; returns its id. `operation` is what the
    change did (remember, forget, undo, purge); `command` is what the member typed."""
    value: int = await connection.fetchval(
        "INSERT INTO fact_history (guild_id, user_id, version, old_blob, new_blob, actor_id,"
        " command, statement, source_message_id, reverts_id, operation)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        guild_id,
        user_id,
        version,
        old_blob,
        new_blob,
        actor_id,
        command,
        statement,
        source_message_id,
        reverts_id,
        operation,
    )
    return value


async def get_history(
    db: Executor, guild_id: int, user_id: int, *, limit: int = 20
) -> list[HistoryRecord]:
    """The member's most recent changes, newest first."""
    rows = await db.fetch(
        f"SELECT {_HISTORY_COLUMNS} FROM fact_history WHERE guild_id = $1 AND user_id = $2"
        " ORDER BY id DESC LIMIT $3",
        guild_id,
        user_id,
        limit,
    )
    return [_history(row) for row in rows]


async def last_undoable(db: Executor, guild_id: int, user_id: int) -> HistoryRecord | None:
    """The newest change that is not itself an undo and has not been reverted yet."""
    row = await db.fetchrow(
        f"SELECT {_HISTORY_COLUMNS} FROM fact_history h"
        " WHERE h.guild_id = $1 AND h.user_id = $2 AND h.reverts_id IS NULL"
        " AND h.operation IS DISTINCT FROM 'undo'"
        " AND NOT EXISTS (SELECT 1 FROM fact_history u WHERE u.reverts_id = h.id)"
        " ORDER BY h.id DESC LIMIT 1",
        guild_id,
        user_id,
    )
    return _history(row) if row else None


async def get_forgotten_records(db: Executor, guild_id: int, user_id: int) -> list[ForgottenRecord]:
    """Forgotten statements with their ids, oldest first (for un-forgetting)."""
    return await fetch_as(
        db,
        ForgottenRecord,
        "SELECT id, statement, actor_id, created_at FROM forgotten_statements"
        " WHERE guild_id = $1 AND user_id = $2 ORDER BY id",
        guild_id,
        user_id,
    )


async def add_forgotten(
    db: Executor, guild_id: int, user_id: int, statement: str, actor_id: int | None
) -> int:
    value: int = await db.fetchval(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement, actor_id)"
        " VALUES ($1, $2, $3, $4) RETURNING id",
        guild_id,
        user_id,
        statement,
        actor_id,
    )
    return value


async def remove_forgotten(db: Executor, guild_id: int, user_id: int, ids: list[int]) -> int:
    """Drop forgotten statements (remembered again explicitly, or a forget was undone)."""
    if not ids:
        return 0
    return await execute_counted(
        db,
        "DELETE FROM forgotten_statements WHERE guild_id = $1 AND user_id = $2"
        " AND id = ANY($3::bigint[])",
        guild_id,
        user_id,
        ids,
    )
