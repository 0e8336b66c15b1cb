"""What one ingest batch does in the database, and which failures are worth retrying.

Every write is idempotent (messages on message id, members and guilds by key), so retrying a
batch that half-reached the server before failing is safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from db import guilds as guild_store
from db import members as member_store
from db import messages as message_store
from memory.core.models import ChatMessage, Member

# Errors that say "the database is unreachable or busy right now": retry the batch later.
_TRANSIENT_POSTGRES = (
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,  # admin shutdown, cannot connect now
    asyncpg.exceptions.InsufficientResourcesError,  # too many connections, disk full
    asyncpg.exceptions.TransactionRollbackError,  # serialization failure, deadlock
)


@dataclass(frozen=True, slots=True)
class NewMessage:
    message: ChatMessage


@dataclass(frozen=True, slots=True)
class EditedMessage:
    message: ChatMessage


@dataclass(frozen=True, slots=True)
class DeletedMessage:
    message_id: int


@dataclass(frozen=True, slots=True)
class MemberSeen:
    member: Member


@dataclass(frozen=True, slots=True)
class GuildSeen:
    guild_id: int
    name: str | None


Operation = NewMessage | EditedMessage | DeletedMessage | MemberSeen | GuildSeen


@dataclass
class BatchResult:
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    members: int = 0


def is_transient(exc: BaseException) -> bool:
    """True when retrying later may succeed (connection lost, server restarting, timeouts).

    A PostgreSQL error outside the transient classes is about the data itself (e.g. a value
    out of range): retrying would only block the queue forever.
    """
    if isinstance(exc, (ValueError, TypeError)):  # includes asyncpg's client-side DataError
        return False
    if isinstance(exc, asyncpg.PostgresError):
        return isinstance(exc, _TRANSIENT_POSTGRES)
    return isinstance(exc, (OSError, TimeoutError, asyncpg.InterfaceError, ConnectionError))


async def write_batch(
    pool: asyncpg.Pool,
    operations: Sequence[Operation],
    *,
    default_timezone: str = "UTC",
    acquire_timeout: float = 10.0,
) -> BatchResult:
    """One transaction: guilds, members, new messages, then edits and deletes, so an edit or
    delete queued after its message applies after it."""
    guilds: dict[int, str | None] = {}
    members: dict[tuple[int, int], Member] = {}
    new: list[ChatMessage] = []
    edits: dict[int, ChatMessage] = {}
    deletes: list[int] = []
    for operation in operations:
        match operation:
            case GuildSeen(guild_id, name):
                guilds[guild_id] = name or guilds.get(guild_id)
            case MemberSeen(member):
                members[(member.guild_id, member.user_id)] = member
            case NewMessage(message):
                new.append(message)
            case EditedMessage(message):
                edits[message.message_id] = message
            case DeletedMessage(message_id):
                deletes.append(message_id)
    result = BatchResult(members=len(members))
    async with (
        pool.acquire(timeout=acquire_timeout) as connection,
        connection.transaction(),
    ):
        if guilds:
            await guild_store.ensure_guilds(connection, guilds.items(), timezone=default_timezone)
        if members:
            await member_store.upsert_members(connection, members.values())
        result.inserted = await message_store.insert_messages(connection, new)
        if edits:
            updated, inserted = await message_store.apply_edits(
                connection, list(edits.values()), default_timezone=default_timezone
            )
            result.updated, result.inserted = updated, result.inserted + inserted
        result.deleted = await message_store.mark_deleted(
            connection, deletes, default_timezone=default_timezone
        )
    return result
