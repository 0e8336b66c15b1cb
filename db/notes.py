"""Queries of incremental summaries: a day's passes (stretches read once) and their notes.

A pass covers the guild's messages with created_at in [start_at, end_at). Its fingerprint is a
digest of which messages were there and when each was last edited, so comparing the stored
fingerprint with the live one tells whether an edit, delete or late message touched the stretch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from db.types import Connection, Executor
from db.visibility import shared_source

# Which messages a stretch holds, and each one's edit time: any edit, delete or late arrival
# changes it. Deleted messages are left out (their content is gone), and so are messages that
# may not feed shared memory (db/visibility.py): a channel turning restricted changes it too.
_FINGERPRINT = """
    md5(coalesce(string_agg(
        m.message_id::text || ':' || coalesce(extract(epoch FROM m.edited_at)::text, ''),
        ',' ORDER BY m.message_id), ''))
"""


@dataclass(frozen=True, slots=True)
class StoredPass:
    start_at: datetime
    end_at: datetime
    fingerprint: str
    live_fingerprint: str
    provider: str | None = None

    @property
    def fresh(self) -> bool:
        return self.fingerprint == self.live_fingerprint


async def stretch_fingerprint(db: Executor, guild_id: int, start: datetime, end: datetime) -> str:
    """The live fingerprint of the guild's messages in [start, end)."""
    value: str = await db.fetchval(
        f"""
        SELECT {_FINGERPRINT} FROM messages m
        WHERE m.guild_id = $1 AND m.created_at >= $2 AND m.created_at < $3 AND NOT m.deleted
          AND {shared_source("m")}
        """,
        guild_id,
        start,
        end,
    )
    return value


async def day_passes(db: Executor, guild_id: int, day: date) -> list[StoredPass]:
    """The day's passes in time order, each with its stored and its live fingerprint."""
    rows = await db.fetch(
        f"""
        SELECT p.start_at, p.end_at, p.fingerprint, p.provider,
               (SELECT {_FINGERPRINT} FROM messages m
                WHERE m.guild_id = p.guild_id AND m.created_at >= p.start_at
                  AND m.created_at < p.end_at AND NOT m.deleted
                  AND {shared_source("m")}) AS live
        FROM day_passes p
        WHERE p.guild_id = $1 AND p.day = $2
        ORDER BY p.start_at
        """,
        guild_id,
        day,
    )
    return [
        StoredPass(row["start_at"], row["end_at"], row["fingerprint"], row["live"], row["provider"])
        for row in rows
    ]


async def save_pass(
    connection: Connection,
    guild_id: int,
    day: date,
    *,
    start: datetime,
    end: datetime,
    fingerprint: str,
    provider: str | None,
    notes: dict[int, str],
) -> None:
    """Replace the pass starting at `start` and its notes (empty notes are not kept)."""
    async with connection.transaction():
        await connection.execute(
            "DELETE FROM day_passes WHERE guild_id = $1 AND day = $2 AND start_at = $3",
            guild_id,
            day,
            start,
        )
        await connection.execute(
            """
            INSERT INTO day_passes (guild_id, day, start_at, end_at, fingerprint, provider)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            guild_id,
            day,
            start,
            end,
            fingerprint,
            provider,
        )
        rows = [(guild_id, day, start, uid, text) for uid, text in sorted(notes.items()) if text]
        if rows:
            # Checked at write time: a member who opted out while this stretch was being read
            # gets no note (the purge has already run).
            await connection.executemany(
                "INSERT INTO day_notes (guild_id, day, start_at, user_id, note)"
                " SELECT $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM member_consent c"
                " WHERE c.guild_id = $1 AND c.user_id = $4 AND c.state = 'out')",
                rows,
            )


async def day_notes(
    db: Executor, guild_id: int, day: date, user_id: int | None = None
) -> dict[int, list[str]]:
    """Every member's notes of the day (or one member's), in the order of the passes that
    wrote them."""
    rows = await db.fetch(
        """
        SELECT user_id, note FROM day_notes
        WHERE guild_id = $1 AND day = $2 AND note <> ''
          AND ($3::bigint IS NULL OR user_id = $3)
        ORDER BY user_id, start_at
        """,
        guild_id,
        day,
        user_id,
    )
    notes: dict[int, list[str]] = {}
    for row in rows:
        notes.setdefault(row["user_id"], []).append(row["note"])
    return notes


async def noted_chars_before(
    db: Executor, guild_id: int, day: date, before: datetime
) -> dict[int, int]:
    """Characters of notes each member got today from the passes starting before `before`."""
    rows = await db.fetch(
        "SELECT user_id, sum(length(note))::int + count(*)::int - 1 AS chars FROM day_notes"
        " WHERE guild_id = $1 AND day = $2 AND start_at < $3 AND note <> '' GROUP BY user_id",
        guild_id,
        day,
        before,
    )
    return {row["user_id"]: row["chars"] for row in rows}


async def delete_passes(connection: Connection, guild_id: int, day: date) -> None:
    """Forget how a day was read (a forced re-summary reads it again from scratch)."""
    await connection.execute(
        "DELETE FROM day_passes WHERE guild_id = $1 AND day = $2", guild_id, day
    )


async def reopen_stretches(db: Executor, guild_id: int, moments: list[datetime]) -> int:
    """Messages stored late into stretches already read (an import of history the guild had
    before, e.g. after a purge took its notes): those stretches are read again and their days
    marked stale, since a matching fingerprint no longer proves their notes are all there.
    Returns how many days were marked."""
    marked = await db.fetchval(
        """
        WITH reopened AS (
            UPDATE day_passes p SET fingerprint = ''
            WHERE p.guild_id = $1 AND EXISTS (
                SELECT 1 FROM unnest($2::timestamptz[]) AS t(at)
                WHERE t.at >= p.start_at AND t.at < p.end_at
            )
            RETURNING p.day
        ),
        staled AS (
            UPDATE summary_days s SET stale = true
            WHERE s.guild_id = $1 AND s.day IN (SELECT day FROM reopened) AND NOT s.stale
            RETURNING 1
        )
        SELECT count(*) FROM staled
        """,
        guild_id,
        moments,
    )
    return int(marked or 0)
