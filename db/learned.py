"""Queries of learned facts: what chat revealed about a member, with provenance."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import asyncpg

from db.rows import changed, execute_counted
from db.types import Connection, Executor


@dataclass(frozen=True, slots=True)
class LearnedFact:
    id: int
    user_id: int
    subject: str
    statement: str
    said_by: int | None
    message_ids: list[int]
    first_seen: date
    last_seen: date
    confidence: float
    current: bool


_COLUMNS = (
    "id, user_id, subject, statement, said_by, message_ids, first_seen, last_seen,"
    " confidence, current"
)


def _fact(row: asyncpg.Record) -> LearnedFact:
    return LearnedFact(**{**dict(row), "message_ids": list(row["message_ids"])})


async def current_facts(db: Executor, guild_id: int, user_id: int) -> list[LearnedFact]:
    """The member's current learned facts, most recently confirmed first."""
    rows = await db.fetch(
        f"SELECT {_COLUMNS} FROM learned_facts WHERE guild_id = $1 AND user_id = $2"
        " AND current ORDER BY last_seen DESC, confidence DESC, id DESC",
        guild_id,
        user_id,
    )
    return [_fact(row) for row in rows]


async def all_facts(db: Executor, guild_id: int, user_id: int) -> list[LearnedFact]:
    """Every learned fact of the member, superseded ones included."""
    rows = await db.fetch(
        f"SELECT {_COLUMNS} FROM learned_facts WHERE guild_id = $1 AND user_id = $2 ORDER BY id",
        guild_id,
        user_id,
    )
    return [_fact(row) for row in rows]


async def current_on_subject(
    db: Executor, guild_id: int, user_id: int, subject: str
) -> LearnedFact | None:
    row = await db.fetchrow(
        f"SELECT {_COLUMNS} FROM learned_facts WHERE guild_id = $1 AND user_id = $2"
        " AND subject = $3 AND current ORDER BY id DESC LIMIT 1",
        guild_id,
        user_id,
        subject,
    )
    return _fact(row) if row else None


async def insert_fact(
    db: Executor,
    guild_id: int,
    user_id: int,
    *,
    subject: str,
    statement: str,
    said_by: int | None,
    message_ids: list[int],
    day: date,
) -> int:
    """A new current fact; an older current one on the same subject is superseded by it."""
    new_id = await db.fetchval(
        """
        INSERT INTO learned_facts (guild_id, user_id, subject, statement, said_by, message_ids,
                                   first_seen, last_seen)
        SELECT $1, $2, $3, $4, $5, $6, $7, $7
        WHERE NOT EXISTS (SELECT 1 FROM member_consent c
                          WHERE c.guild_id = $1 AND c.user_id = $2 AND c.state = 'out')
        RETURNING id
        """,
        guild_id,
        user_id,
        subject,
        statement,
        said_by,
        message_ids,
        day,
    )
    if new_id is not None:
        await db.execute(
            "UPDATE learned_facts SET current = false, superseded_by = $4"
            " WHERE guild_id = $1 AND user_id = $2 AND subject = $3 AND current AND id <> $4",
            guild_id,
            user_id,
            subject,
            new_id,
        )
    return int(new_id or 0)


async def confirm_fact(
    db: Executor, guild_id: int, fact_id: int, day: date, message_ids: list[int]
) -> None:
    """Said again: seen later, a little more certain, with the new messages as provenance."""
    await db.execute(
        "UPDATE learned_facts SET last_seen = greatest(last_seen, $2),"
        " confidence = least(1.0, confidence + 0.1),"
        " message_ids = ARRAY(SELECT DISTINCT unnest(message_ids || $3::bigint[]))"
        " WHERE guild_id = $4 AND id = $1",
        fact_id,
        day,
        message_ids,
        guild_id,
    )


async def delete_facts(db: Executor, guild_id: int, fact_ids: list[int]) -> int:
    return await execute_counted(
        db,
        "DELETE FROM learned_facts WHERE guild_id = $1 AND id = ANY($2::bigint[])",
        guild_id,
        fact_ids,
    )


async def unlearn_said_by(
    connection: Connection, guild_id: int, user_id: int
) -> tuple[int, int, list[int]]:
    """What chat taught about others from one member's words goes with the member ("bob is
    allergic to kiwiberry jam", said by alice); a fact drawn from several members' messages
    loses the member's ones. Run before the member's messages are deleted. Returns (facts
    deleted, facts whose provenance was pruned, the members the deleted facts were about)."""
    rows = await connection.fetch(
        "DELETE FROM learned_facts WHERE guild_id = $1 AND said_by = $2 AND user_id <> $2"
        " RETURNING user_id",
        guild_id,
        user_id,
    )
    pruned = await connection.execute(
        """
        UPDATE learned_facts f SET message_ids = ARRAY(
            SELECT mid FROM unnest(f.message_ids) AS mid
            WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.message_id = mid
                              AND m.guild_id = $1 AND m.author_id = $2))
        WHERE f.guild_id = $1 AND f.user_id <> $2 AND EXISTS (
            SELECT 1 FROM messages m WHERE m.message_id = ANY(f.message_ids)
              AND m.guild_id = $1 AND m.author_id = $2)
        """,
        guild_id,
        user_id,
    )
    return len(rows), changed(pruned), sorted({row["user_id"] for row in rows})
