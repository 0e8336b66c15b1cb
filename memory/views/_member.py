"""A member as the admin sees them: learned facts with their provenance, and the history of
their facts, with every forgotten statement taken out first.

The history keeps the blob before and after each change; a forget's "before" still holds what
was forgotten, and so does the statement of the forget itself. Both are shown without it: a
forgotten statement appears nowhere, not even in the record of forgetting it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

import asyncpg

from db.activity import fact_sources, opted_out
from db.facts import get_forgotten, get_history
from db.learned import current_facts
from memory.language import drop_restating, restates_any


@dataclass(frozen=True, slots=True)
class LearnedView:
    """A fact chat taught, where it came from: who said it, on which days, which messages."""

    statement: str
    said_by: int | None
    first_seen: date
    last_seen: date
    confidence: float
    # (channel id, message id) of its messages still stored (retention may have taken some).
    sources: tuple[tuple[int, int], ...]
    message_count: int


@dataclass(frozen=True, slots=True)
class FactEvent:
    """One change of a member's facts, forgotten statements removed."""

    id: int
    at: datetime
    operation: str
    command: str
    actor_id: int | None
    statement: str | None
    before: str
    after: str
    reverted: bool


class MemberViews:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def opted_out(self, guild_id: int) -> list[int]:
        """Who asked not to be remembered: listed as such, with nothing held."""
        return await opted_out(self._pool, guild_id)

    async def forgotten(self, guild_id: int, user_id: int) -> list[str]:
        return await get_forgotten(self._pool, guild_id, user_id)

    async def learned(
        self, guild_id: int, user_id: int, names: Sequence[str] = ()
    ) -> list[LearnedView]:
        forgotten = await self.forgotten(guild_id, user_id)
        facts = [
            fact
            for fact in await current_facts(self._pool, guild_id, user_id)
            if not restates_any(fact.statement, forgotten, names=names)
        ]
        where = await fact_sources(
            self._pool, guild_id, sorted({mid for fact in facts for mid in fact.message_ids})
        )
        return [
            LearnedView(
                statement=fact.statement,
                said_by=fact.said_by,
                first_seen=fact.first_seen,
                last_seen=fact.last_seen,
                confidence=fact.confidence,
                sources=tuple((where[mid], mid) for mid in fact.message_ids if mid in where),
                message_count=len(fact.message_ids),
            )
            for fact in facts
        ]

    async def history(
        self, guild_id: int, user_id: int, names: Sequence[str] = (), *, limit: int = 30
    ) -> list[FactEvent]:
        forgotten = await self.forgotten(guild_id, user_id)
        records = await get_history(self._pool, guild_id, user_id, limit=limit)
        reverted = {record.reverts_id for record in records if record.reverts_id is not None}

        def clean(text: str) -> str:
            return drop_restating(text, forgotten, names=names)[0]

        events = []
        for record in records:
            statement = record.statement
            if statement and restates_any(statement, forgotten, names=names):
                statement = None  # the words of a forget are the forgotten words
            events.append(
                FactEvent(
                    id=record.id,
                    at=record.created_at,
                    operation=record.operation or record.command,
                    command=record.command,
                    actor_id=record.actor_id,
                    statement=statement,
                    before=clean(record.old_blob),
                    after=clean(record.new_blob),
                    reverted=record.id in reverted,
                )
            )
        return events
