"""Privacy: export everything held about a member, or purge it.

Used by `memorybot user export|purge` and by `/memory purge`. A purge deletes the member's
messages, directory row, facts, fact history, forgotten statements, summaries and merged
context in one transaction; other members' days they took part in are marked stale so they are
re-summarised without them (right away when a `resummarize` callback is given).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import asyncpg

from db.guilds import get_timezone
from db.members import get_member
from db.privacy import (
    PurgeCounts,
    fetch_member_data,
    guild_exists,
    guilds_named,
    member_has_data,
)
from db.privacy_purge import purge_member_rows
from db.types import Connection
from memory.core.clock import Clock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.members import MemberResolver, describe

_log = logging.getLogger(__name__)

EXPORT_FORMAT = "memorybot.member-export.v1"
_ID = re.compile(r"^(?:<@!?(\d+)>|(\d+))$")

Resummarize = Callable[[int, date], Awaitable[object]]


class PrivacyError(Exception):
    """The request cannot be carried out as asked; the message says why in one line."""


class UnknownGuild(PrivacyError):
    pass


class UnknownMember(PrivacyError):
    pass


class AmbiguousMember(PrivacyError):
    def __init__(self, message: str, candidates: tuple[Member, ...]) -> None:
        super().__init__(message)
        self.candidates = candidates


@dataclass(frozen=True)
class Subject:
    """The member a privacy request is about."""

    guild_id: int
    user_id: int
    member: Member | None = None

    @property
    def label(self) -> str:
        return describe(self.member) if self.member else f"user {self.user_id}"


@dataclass
class PurgeReport:
    subject: Subject
    counts: PurgeCounts
    resummarized: list[date] = field(default_factory=list)

    def describe(self) -> str:
        parts = ", ".join(f"{table} {n}" for table, n in sorted(self.counts.rows.items()))
        stale = ", ".join(day.isoformat() for day in self.counts.stale_days) or "none"
        return (
            f"purged {self.subject.label} from guild {self.subject.guild_id}: "
            f"{parts or 'nothing held'}; shared days to re-summarise: {stale}"
        )


def parse_member_id(text: str) -> int | None:
    """An id or a `<@id>` mention, else None."""
    return _parse_id(text)


def _parse_id(text: str) -> int | None:
    match = _ID.match(text.strip())
    if match is None:
        return None
    return int(match.group(1) or match.group(2))


async def resolve_guild(db: asyncpg.Pool | Connection, text: str) -> int:
    """A guild id, or the exact (case-insensitive) name of a known guild."""
    guild_id = _parse_id(text)
    if guild_id is not None:
        if not await guild_exists(db, guild_id):
            raise UnknownGuild(f"no guild {guild_id} in the database")
        return guild_id
    matches = await guilds_named(db, text.strip())
    if not matches:
        raise UnknownGuild(f"no guild named {text.strip()!r} in the database")
    if len(matches) > 1:
        ids = ", ".join(str(g) for g in matches)
        raise UnknownGuild(f"{len(matches)} guilds are named {text.strip()!r} ({ids}); pass the id")
    return matches[0]


async def resolve_subject(db: asyncpg.Pool | Connection, guild_id: int, text: str) -> Subject:
    """The member named by an id, a `<@id>` mention or any of their names or aliases."""
    user_id = _parse_id(text)
    if user_id is not None:
        member = await get_member(db, guild_id, user_id)
        if member is None and not await member_has_data(db, guild_id, user_id):
            raise UnknownMember(f"nothing is held about user {user_id} in guild {guild_id}")
        return Subject(guild_id, user_id, member)
    resolution = await MemberResolver(db).resolve(guild_id, text)
    if resolution.member is not None:
        return Subject(guild_id, resolution.member.user_id, resolution.member)
    if resolution.candidates:
        names = "; ".join(describe(m) for m in resolution.candidates)
        raise AmbiguousMember(
            f"{text.strip()!r} matches {len(resolution.candidates)} members: {names};"
            " pass the id instead",
            resolution.candidates,
        )
    raise UnknownMember(f"no member named {text.strip()!r} in guild {guild_id}")


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


async def export_member(
    pool: asyncpg.Pool,
    subject: Subject,
    *,
    clock: Clock,
    telemetry: Telemetry,
) -> dict[str, Any]:
    """Everything held about the member as a JSON-ready dict (ids stay ids, times ISO 8601)."""
    started = time.perf_counter()
    async with pool.acquire() as connection, connection.transaction(isolation="repeatable_read"):
        data = await fetch_member_data(connection, subject.guild_id, subject.user_id)
    export = {
        "format": EXPORT_FORMAT,
        "exported_at": clock.now().isoformat(),
        "guild_id": subject.guild_id,
        "user_id": subject.user_id,
        **_jsonable(data),
    }
    telemetry.emit(
        "privacy_export",
        guild_id=subject.guild_id,
        user_id=subject.user_id,
        count=row_count(export),
        latency_ms=round((time.perf_counter() - started) * 1000, 2),
    )
    return export


async def purge_preview(pool: asyncpg.Pool, subject: Subject) -> dict[str, Any]:
    """What a purge would delete, shaped like an export but not reported as one."""
    data = await fetch_member_data(pool, subject.guild_id, subject.user_id)
    preview: dict[str, Any] = _jsonable(data)
    return preview


def row_count(export: dict[str, Any]) -> int:
    """How many stored rows an export holds (for prompts and telemetry)."""
    total = 0
    for key, value in export.items():
        if key == "other_tables":
            total += sum(len(rows) for rows in value.values())
        elif isinstance(value, list):
            total += len(value)
        elif isinstance(value, dict):
            total += 1
    return total


def export_summary(export: dict[str, Any]) -> str:
    """One line per kind of data, for the purge confirmation prompt."""
    lines = []
    for key, value in export.items():
        if isinstance(value, list) and value:
            lines.append(f"  {key}: {len(value)}")
        elif key == "other_tables":
            lines.extend(f"  {table}: {len(rows)}" for table, rows in value.items())
        elif isinstance(value, dict) and key not in ("other_tables",):
            lines.append(f"  {key}: 1")
    return "\n".join(lines) or "  (nothing)"


def to_json(export: dict[str, Any]) -> str:
    return json.dumps(export, ensure_ascii=False, indent=2, default=str) + "\n"


async def purge_member(
    pool: asyncpg.Pool,
    subject: Subject,
    *,
    default_timezone: str = "UTC",
    actor_id: int | None = None,
    telemetry: Telemetry,
    resummarize: Resummarize | None = None,
) -> PurgeReport:
    """Delete everything about the member in one transaction, then re-summarise shared days.

    `resummarize(guild_id, day)` (e.g. MemoryManager.summarize_day) is called for each shared
    day after the commit; when it fails the day stays stale and is recomputed on next use.
    """
    started = time.perf_counter()
    names = list(subject.member.names) if subject.member else []
    try:
        async with pool.acquire() as connection, connection.transaction():
            timezone = await get_timezone(connection, subject.guild_id, default_timezone)
            counts = await purge_member_rows(
                connection, subject.guild_id, subject.user_id, timezone=timezone, names=names
            )
    except Exception as exc:
        telemetry.emit(
            "privacy_purge",
            outcome="error",
            guild_id=subject.guild_id,
            user_id=subject.user_id,
            actor_id=actor_id,
            error=f"{type(exc).__name__}: {exc}"[:500],
        )
        raise
    report = PurgeReport(subject, counts)
    if resummarize is not None:
        for day in counts.stale_days:
            try:
                await resummarize(subject.guild_id, day)
                report.resummarized.append(day)
            except Exception:
                _log.exception("re-summarising %s of guild %s failed", day, subject.guild_id)
    _log.info("%s", report.describe())
    telemetry.emit(
        "privacy_purge",
        guild_id=subject.guild_id,
        user_id=subject.user_id,
        actor_id=actor_id,
        count=counts.total,
        stale_days=len(counts.stale_days),
        resummarized=len(report.resummarized),
        latency_ms=round((time.perf_counter() - started) * 1000, 2),
    )
    return report
