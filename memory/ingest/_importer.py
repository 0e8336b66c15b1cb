"""Import DiscordChatExporter JSON exports (one channel per file) into the message store.

Why: a server's history before the bot joined is what the summaries and replies need on day
one. A file is streamed (constant memory) and written in one transaction: a malformed or
truncated file raises `ExportFormatError` naming the problem and leaves nothing behind, and
importing the same file twice adds nothing (messages are idempotent on id). One bad message
(an id out of range, a missing author, a row the database refuses) costs only itself: the
file's clean rows go in and each bad one is named (`ImportResult.bad_rows`: id, reason).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

from db import consent as consent_store
from db import guilds as guild_store
from db import members as member_store
from db import messages as message_store
from db import notes as note_store
from db.types import Connection
from memory.core.models import ChatMessage, Member
from memory.core.surrogates import clean_name
from memory.core.telemetry import Telemetry
from memory.ingest._batch import describe_error, is_data_error
from memory.ingest._export_rows import ExportFormatError, bad_row, parse_message, snowflake
from memory.ingest._json_stream import JsonStreamError, ObjectStream

_log = logging.getLogger(__name__)

BATCH = 1000

Progress = Callable[[int, int], None]  # (bytes read, messages seen)


@dataclass
class ImportResult:
    path: Path
    guild_id: int = 0
    guild_name: str | None = None
    channel_id: int = 0
    channel_name: str | None = None
    seen: int = 0  # message entries in the file
    new: int = 0  # stored by this import
    existing: int = 0  # already stored (a re-import, or seen live)
    skipped_bots: int = 0
    skipped_other: int = 0  # system messages (joins, pins...)
    skipped_consent: int = 0  # by members who opted out (or did not opt in where asked)
    members: int = 0
    # Time span of the messages stored or already present (the import explains its day window).
    first_at: datetime | None = None
    last_at: datetime | None = None
    # Messages left out because they could not be read or stored: (message id, reason).
    bad_rows: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.path.name}: #{self.channel_name or self.channel_id} in "
            f"{self.guild_name or self.guild_id}: {self.seen} messages, {self.new} new, "
            f"{self.existing} already stored, {self.skipped_bots} from bots skipped, "
            f"{self.skipped_other} system messages skipped, {self.members} members"
            + (
                f", {self.skipped_consent} from members who opted out skipped"
                if self.skipped_consent
                else ""
            )
            + (f", {len(self.bad_rows)} bad messages left out" if self.bad_rows else "")
        )


@dataclass
class _Header:
    guild_id: int | None = None
    guild_name: str | None = None
    channel_id: int | None = None
    channel_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, eq=False)
class ExportImporter:
    """Imports export files into PostgreSQL, one transaction per file."""

    pool: asyncpg.Pool
    _: KW_ONLY
    include_bots: bool = False
    max_chars: int = 8000
    default_timezone: str = "UTC"
    telemetry: Telemetry
    batch_size: int = BATCH

    async def import_file(
        self, path: Path, progress: Progress | None = None, result: ImportResult | None = None
    ) -> ImportResult:
        """Import one export; raises ExportFormatError when it is unusable. Each batch is
        committed as it is written, so an interrupted or failed import keeps what it stored
        (`result`, when given, says how far it got) and importing again skips it."""
        started = time.perf_counter()
        result = result if result is not None else ImportResult(path=path)
        try:
            with path.open("rb") as source:
                stream = ObjectStream(source, stream_keys=frozenset({"messages"}))
                async with self.pool.acquire() as connection:
                    await self._write(connection, stream, result, progress)
        except ExportFormatError:
            raise
        except JsonStreamError as exc:
            raise ExportFormatError(f"{_problem(exc)}") from None
        except OSError as exc:
            raise ExportFormatError(f"cannot read: {exc.strerror or exc}") from None
        except Exception as exc:
            if not is_data_error(exc):
                raise  # the database is away: not the file's fault
            raise ExportFormatError(f"the database refused it: {describe_error(exc)}") from None
        self.telemetry.emit(
            "import",
            guild_id=result.guild_id,
            channel_id=result.channel_id,
            messages=result.seen,
            new=result.new,
            skipped=result.skipped_bots + result.skipped_other,
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        return result

    async def refresh_statistics(self, tables: Sequence[str] = ("messages",)) -> None:
        """After a batch of imports: the planner's statistics of the tables it filled (the
        messages, unless told others: `db/messages.IMPORTED_TABLES`), so the first searches
        over what was imported are planned for its size."""
        await message_store.refresh_statistics(self.pool, tables)

    async def _write(
        self,
        connection: Connection,
        stream: ObjectStream,
        result: ImportResult,
        progress: Progress | None,
    ) -> None:
        header = _Header()
        members: dict[int, Member] = {}
        batch: list[ChatMessage] = []
        declared_count: int | None = None
        for kind, key, value in stream.events():
            if kind == "key":
                if key == "messageCount" and isinstance(value, int):
                    declared_count = value
                else:
                    _read_header(header, key, value)
                continue
            if header.guild_id is None or header.channel_id is None:
                raise ExportFormatError(
                    "no guild/channel before the messages: not a DiscordChatExporter JSON export"
                )
            if result.seen == 0:
                await self._begin(connection, header, result)
            result.seen += 1
            try:
                message, people = parse_message(
                    value,
                    guild_id=header.guild_id,
                    channel_id=header.channel_id,
                    max_chars=self.max_chars,
                )
            except ExportFormatError as exc:  # this message only: the rest of the file goes in
                result.bad_rows.append(bad_row(value, result.seen, exc))
                continue
            for person in people:
                members[person.user_id] = _merge(members.get(person.user_id), person)
            if message is None:
                result.skipped_other += 1
            elif message.author_is_bot and not self.include_bots:
                result.skipped_bots += 1
            else:
                batch.append(message)
            if len(batch) >= self.batch_size:
                await self._flush(connection, batch, result, members)
            if progress is not None:
                progress(stream.bytes_read, result.seen)
        _check_complete(header, stream, declared_count, result.seen)
        if result.seen == 0:
            await self._begin(connection, header, result)
        await self._flush(connection, batch, result, members)
        result.members = len(members)
        if progress is not None:
            progress(stream.bytes_read, result.seen)

    async def _begin(self, connection: Connection, header: _Header, result: ImportResult) -> None:
        assert header.guild_id is not None and header.channel_id is not None
        if header.guild_id == 0:
            raise ExportFormatError("a direct-message export; only server channels are imported")
        result.guild_id, result.guild_name = header.guild_id, header.guild_name
        result.channel_id, result.channel_name = header.channel_id, header.channel_name
        await guild_store.ensure_guild(
            connection, header.guild_id, header.guild_name, timezone=self.default_timezone
        )
        if header.channel_name:  # so output names #general, not the channel's id
            await guild_store.ensure_channel_names(
                connection, [(header.guild_id, header.channel_id, header.channel_name)]
            )

    async def _flush(
        self,
        connection: Connection,
        batch: list[ChatMessage],
        result: ImportResult,
        members: dict[int, Member],
    ) -> None:
        """One batch and the members seen so far, committed together."""
        async with connection.transaction():
            await member_store.upsert_members(connection, members.values())
            if batch:
                await self._flush_batch(connection, batch, result)

    async def _flush_batch(
        self, connection: Connection, batch: list[ChatMessage], result: ImportResult
    ) -> None:
        new = await self._insert(connection, batch, result)
        if new:  # history stored again into stretches read before: read them again
            await note_store.reopen_stretches(
                connection, batch[0].guild_id, [m.created_at for m in batch]
            )
        refused = await consent_store.unstorable_authors(
            connection, batch[0].guild_id, [m.author_id for m in batch]
        )
        skipped = sum(1 for m in batch if m.author_id in refused)
        first, last = min(m.created_at for m in batch), max(m.created_at for m in batch)
        result.first_at = first if result.first_at is None else min(result.first_at, first)
        result.last_at = last if result.last_at is None else max(result.last_at, last)
        result.new += new
        result.skipped_consent += skipped
        result.existing += len(batch) - new - skipped
        batch.clear()

    async def _insert(
        self, connection: Connection, batch: list[ChatMessage], result: ImportResult
    ) -> int:
        """Insert a batch; when the database refuses it, row by row, so only the refused rows
        are left out (each named)."""
        try:
            async with connection.transaction():  # a savepoint: a refusal undoes this batch only
                return await message_store.insert_messages(connection, batch)
        except Exception as exc:
            if not is_data_error(exc):
                raise
        new = 0
        for message in list(batch):
            try:
                async with connection.transaction():
                    new += await message_store.insert_messages(connection, [message])
            except Exception as exc:
                if not is_data_error(exc):
                    raise
                reason = f"the database refused it: {describe_error(exc)}"
                result.bad_rows.append((str(message.message_id), reason))
                batch.remove(message)
        return new


def _check_complete(
    header: _Header, stream: ObjectStream, declared_count: int | None, seen: int
) -> None:
    """ExportFormatError when the file ended without being a whole export."""
    if header.guild_id is None or header.channel_id is None:
        raise ExportFormatError("no guild/channel: not a DiscordChatExporter JSON export")
    if "messages" not in stream.arrays_seen:
        raise ExportFormatError("'messages' is missing or not a list")
    if declared_count is not None and declared_count != seen:
        raise ExportFormatError(
            f"messageCount says {declared_count} but the file holds {seen} messages"
        )


def _read_header(header: _Header, key: str, value: Any) -> None:
    if key in ("guild", "channel"):
        if not isinstance(value, dict):
            raise ExportFormatError(f"{key!r} is not an object")
        ident = snowflake(value.get("id"), f"{key}.id")
        name = clean_name(value["name"]) if isinstance(value.get("name"), str) else None
        if key == "guild":
            header.guild_id, header.guild_name = ident, name
        else:
            header.channel_id, header.channel_name = ident, name
    elif key == "messages":
        raise ExportFormatError("'messages' is not a list")
    else:
        header.extra[key] = value


def _merge(known: Member | None, seen: Member) -> Member:
    """Keep the names a member was last seen with; the file is in time order."""
    if known is None:
        return seen
    return Member(
        guild_id=seen.guild_id,
        user_id=seen.user_id,
        username=seen.username or known.username,
        nickname=seen.nickname or known.nickname,
        is_bot=seen.is_bot,
    )


def _problem(exc: JsonStreamError) -> str:
    if exc.truncated:
        return f"truncated: {exc}"
    return f"malformed JSON: {exc}"
