"""The privacy desk: one place for the export and purge flows every front end uses.

`/memory purge`, `memorybot user purge` and (later) opt-outs all need the same steps in the
same order: flush queued writes (their messages must not land after the purge), delete in one
transaction, drop every cached context the member was part of, then re-summarise the days they
shared with others. Keeping that sequence here means no front end can forget a step.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import asyncpg

from memory.core.clock import Clock
from memory.core.telemetry import Telemetry
from memory.privacy._service import (
    PurgeReport,
    Subject,
    export_member,
    purge_member,
    purge_preview,
    resolve_guild,
    resolve_subject,
)

_log = logging.getLogger(__name__)

FlushWrites = Callable[[], Awaitable[None]]
Invalidate = Callable[[int, int], None]
Resummarize = Callable[[int, date], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class PrivacyHooks:
    """What the desk needs from the rest of memory, passed in so privacy imports none of it."""

    flush_writes: FlushWrites
    invalidate: Invalidate
    resummarize: Resummarize


class PrivacyDesk:
    """Resolve, export and purge members; owns the background re-summaries it starts."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        hooks: PrivacyHooks,
        *,
        default_timezone: str,
        clock: Clock,
        telemetry: Telemetry,
    ) -> None:
        self._pool = pool
        self._hooks = hooks
        self._timezone = default_timezone
        self._clock = clock
        self._telemetry = telemetry
        self._background: set[asyncio.Task[list[date]]] = set()

    async def guild(self, text: str) -> int:
        """A guild id, or the exact name of a known guild (PrivacyError otherwise)."""
        return await resolve_guild(self._pool, text)

    async def subject(self, guild_id: int, text: str) -> Subject:
        """The member named by an id, a mention or any name (PrivacyError otherwise)."""
        return await resolve_subject(self._pool, guild_id, text)

    async def export(self, subject: Subject) -> dict[str, Any]:
        await self._hooks.flush_writes()
        return await export_member(
            self._pool, subject, clock=self._clock, telemetry=self._telemetry
        )

    async def preview(self, subject: Subject) -> dict[str, Any]:
        """What a purge would delete (the export document, without writing anything)."""
        await self._hooks.flush_writes()
        return await purge_preview(self._pool, subject)

    async def purge(
        self, subject: Subject, *, actor_id: int | None = None, wait: bool = True
    ) -> PurgeReport:
        """Delete everything about the member. Shared days are re-summarised now (`wait`) or
        in the background (an interaction must answer quickly)."""
        await self._hooks.flush_writes()
        report = await purge_member(
            self._pool,
            subject,
            default_timezone=self._timezone,
            actor_id=actor_id,
            telemetry=self._telemetry,
        )
        for user_id in (subject.user_id, *report.counts.others_invalidated):
            self._hooks.invalidate(subject.guild_id, user_id)
        days = list(report.counts.stale_days)
        if wait:
            report.resummarized.extend(await self._resummarize(subject.guild_id, days))
        elif days:
            task = asyncio.create_task(self._resummarize(subject.guild_id, days))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        return report

    async def _resummarize(self, guild_id: int, days: list[date]) -> list[date]:
        """The days re-summarised; a failed day stays stale and is redone when next used."""
        done = []
        for day in days:
            try:
                await self._hooks.resummarize(guild_id, day)
            except Exception:
                _log.exception("re-summarising %s of guild %s after a purge failed", day, guild_id)
                continue
            done.append(day)
        return done

    async def aclose(self) -> None:
        """Cancel re-summaries still running (the days stay stale and are redone on use)."""
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
