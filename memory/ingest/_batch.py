"""What one ingest batch does in the database, and which failures are worth retrying.

Every write is idempotent (messages on message id, members and guilds by key), so retrying a
batch that half-reached the server before failing is safe.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg

from db import guilds as guild_store
from db import members as member_store
from db import messages as message_store
from memory.core.models import ChatMessage, Member
from memory.core.telemetry import Telemetry

_log = logging.getLogger(__name__)

# SQLSTATE classes that say "this row can never go in": data exceptions (22: value out of
# range, bad encoding...) and integrity violations (23). Anything else the server says (read-only
# transaction 25006, admin shutdown 57P01, lock timeout 55P03, too many connections 53300...)
# is about the server's state right now: wait and retry.
DATA_SQLSTATE_CLASSES = frozenset({"22", "23"})


@dataclass(frozen=True, slots=True)
class NewMessage:
    message: ChatMessage


@dataclass(frozen=True, slots=True)
class EditedMessage:
    message: ChatMessage


@dataclass(frozen=True, slots=True)
class DeletedMessage:
    guild_id: int
    message_id: int


@dataclass(frozen=True, slots=True)
class MemberSeen:
    member: Member
    nickname_known: bool = False  # a guild member's state: no nickname means cleared


@dataclass(frozen=True, slots=True)
class GuildSeen:
    guild_id: int
    name: str | None
    # (channel id, name) of its text channels, so output names #general rather than an id.
    channels: tuple[tuple[int, str], ...] = ()


Operation = NewMessage | EditedMessage | DeletedMessage | MemberSeen | GuildSeen


@dataclass
class BatchResult:
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    members: int = 0
    rejected: int = 0


def is_data_error(exc: BaseException) -> bool:
    """True when the rows themselves are refused: retrying them would block the queue forever.

    Client-side encoding failures (asyncpg's DataError, a lone surrogate's UnicodeEncodeError,
    an id outside int64) are ValueError/TypeError; server-side ones carry SQLSTATE class 22/23.
    """
    if isinstance(exc, asyncpg.PostgresError):
        return (exc.sqlstate or "")[:2] in DATA_SQLSTATE_CLASSES
    return isinstance(exc, (ValueError, TypeError))


def is_transient(exc: BaseException) -> bool:
    """True when retrying later may succeed: anything that is not a data error (connection
    lost, server read-only or shutting down, lock or statement timeouts)."""
    return not is_data_error(exc)


def describe_error(exc: BaseException) -> str:
    """An error for logs and telemetry without the values it carried: asyncpg's client-side
    DataError repeats the offending argument (message text) in its message."""
    name = type(exc).__name__
    if isinstance(exc, asyncpg.PostgresError):
        return f"{name} (SQLSTATE {exc.sqlstate})"
    if isinstance(exc, (OSError, TimeoutError)) and not isinstance(exc, UnicodeError):
        return f"{name}: {exc}"[:300]
    return name


def operation_ids(operation: Operation) -> dict[str, int]:
    """What identifies an event in logs and telemetry: ids and a length, never its text."""
    match operation:
        case NewMessage(message) | EditedMessage(message):
            return {
                "message_id": message.message_id,
                "guild_id": message.guild_id,
                "channel_id": message.channel_id,
                "author_id": message.author_id,
                "content_chars": len(message.content),
            }
        case DeletedMessage(guild_id, message_id):
            return {"guild_id": guild_id, "message_id": message_id}
        case MemberSeen(member):
            return {"guild_id": member.guild_id, "user_id": member.user_id}
        case GuildSeen(guild_id, _):
            return {"guild_id": guild_id}


def describe_operation(operation: Operation) -> str:
    fields = " ".join(f"{key}={value}" for key, value in operation_ids(operation).items())
    return f"{type(operation).__name__} {fields}"


LATE_AFTER = timedelta(hours=1)


def has_late_messages(operations: Sequence[Operation]) -> bool:
    """New messages from over an hour ago (backfill, import) change already summarised days."""
    cutoff = datetime.now(UTC) - LATE_AFTER
    return any(
        isinstance(operation, NewMessage) and operation.message.created_at < cutoff
        for operation in operations
    )


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
    channels: dict[int, tuple[int, int, str]] = {}
    members: dict[tuple[int, int], MemberSeen] = {}
    new: list[ChatMessage] = []
    edits: dict[int, ChatMessage] = {}
    deletes: dict[int, list[int]] = {}
    for operation in operations:
        match operation:
            case GuildSeen(guild_id, name, seen):
                guilds[guild_id] = name or guilds.get(guild_id)
                channels.update({channel_id: (guild_id, channel_id, n) for channel_id, n in seen})
            case MemberSeen(member):
                members[(member.guild_id, member.user_id)] = operation
            case NewMessage(message):
                new.append(message)
            case EditedMessage(message):
                edits[message.message_id] = message
            case DeletedMessage(guild_id, message_id):
                deletes.setdefault(guild_id, []).append(message_id)
    result = BatchResult(members=len(members))
    async with (
        pool.acquire(timeout=acquire_timeout) as connection,
        connection.transaction(),
    ):
        if guilds:
            await guild_store.ensure_guilds(connection, guilds.items(), timezone=default_timezone)
        if channels:
            await guild_store.ensure_channel_names(connection, channels.values())
        for known in (False, True):
            group = [seen.member for seen in members.values() if seen.nickname_known is known]
            if group:
                await member_store.upsert_members(connection, group, nicknames_known=known)
        result.inserted = await message_store.insert_messages(connection, new)
        if edits:
            updated, inserted = await message_store.apply_edits(
                connection, list(edits.values()), default_timezone=default_timezone
            )
            result.updated, result.inserted = updated, result.inserted + inserted
        for guild_id, message_ids in sorted(deletes.items()):
            result.deleted += await message_store.mark_deleted(
                connection, guild_id, message_ids, default_timezone=default_timezone
            )
    return result


async def write_isolating_bad_rows(
    write: Callable[[Sequence[Operation]], Awaitable[BatchResult]],
    operations: Sequence[Operation],
    telemetry: Telemetry,
) -> BatchResult:
    """The whole batch in one transaction; when the database refuses its data, event by
    event so only the refused ones are left out.

    Anything but a data error propagates, even halfway through the one-by-one pass, and the
    caller retries the whole (idempotent) batch. Logs and telemetry name ids and lengths,
    never message text.
    """
    try:
        return await write(operations)
    except Exception as exc:
        if not is_data_error(exc):
            raise
        _log.warning(
            "batch of %d events refused (%s); writing them one by one",
            len(operations),
            describe_error(exc),
        )
    total = BatchResult()
    for operation in operations:
        try:
            result = await write([operation])
        except Exception as exc:
            if not is_data_error(exc):
                raise
            _log.error(
                "event refused by the database and not stored: %s (%s)",
                describe_operation(operation),
                describe_error(exc),
            )
            telemetry.emit(
                "ingest_reject",
                outcome="error",
                operation=type(operation).__name__,
                **operation_ids(operation),
                error=describe_error(exc),
            )
            total.rejected += 1
            continue
        total.inserted += result.inserted
        total.updated += result.updated
        total.deleted += result.deleted
        total.members += result.members
    return total
