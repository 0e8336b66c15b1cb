"""Queries of members' consent: opted out, opted in, and the guild's storage mode.

`STORABLE` is the one SQL predicate every write of chat uses (live ingest, backfill, import,
edits), so whether a member may be stored is decided at write time, in the database: an opt-out
committed while messages are queued still keeps them out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from db.rows import execute_counted, fetch_column, fetch_one_as
from db.types import Executor

# True when the author of row `{row}` may be stored in its guild: not opted out, and opted in
# when the guild stores only members who opted in (guilds.settings->>'storage' = 'opted-in').
STORABLE = """(
    NOT EXISTS (SELECT 1 FROM member_consent c
                WHERE c.guild_id = {row}.guild_id AND c.user_id = {row}.author_id
                  AND c.state = 'out')
    AND (COALESCE((SELECT g.settings->>'storage' FROM guilds g
                   WHERE g.guild_id = {row}.guild_id), 'everyone') <> 'opted-in'
         OR EXISTS (SELECT 1 FROM member_consent c
                    WHERE c.guild_id = {row}.guild_id AND c.user_id = {row}.author_id
                      AND c.state = 'in'))
)"""


@dataclass(frozen=True, slots=True)
class Consent:
    state: str
    changed_at: datetime
    changed_by: int | None
    by_admin: bool


async def record_consent(
    db: Executor,
    guild_id: int,
    user_id: int,
    state: str,
    *,
    changed_by: int | None,
    by_admin: bool,
    name_keys: Sequence[str] = (),
) -> None:
    """Record the member's choice; `name_keys` (see `name_key`) are added to those kept."""
    await db.execute(
        """
        INSERT INTO member_consent (guild_id, user_id, state, changed_by, by_admin, name_keys)
        VALUES ($1, $2, $3, $4, $5, $6::text[])
        ON CONFLICT (guild_id, user_id) DO UPDATE SET
            state = EXCLUDED.state, changed_at = now(),
            changed_by = EXCLUDED.changed_by, by_admin = EXCLUDED.by_admin,
            name_keys = ARRAY(SELECT DISTINCT k FROM unnest(
                member_consent.name_keys || EXCLUDED.name_keys) AS k ORDER BY k)
        """,
        guild_id,
        user_id,
        state,
        changed_by,
        by_admin,
        sorted(set(name_keys)),
    )


def name_key(guild_id: int, name: str) -> str:
    """What is kept of a name after an opt-out: a hash a name typed again can be matched with."""
    clean = name.strip().lstrip("@").casefold()
    return hashlib.sha256(f"{guild_id}:{clean}".encode()).hexdigest()


async def consented_by_name(db: Executor, guild_id: int, name: str) -> list[int]:
    """Members of the guild with a recorded choice who had this name when they made it."""
    return await fetch_column(
        db,
        "SELECT user_id FROM member_consent WHERE guild_id = $1 AND name_keys @> ARRAY[$2::text]"
        " ORDER BY user_id",
        guild_id,
        name_key(guild_id, name),
    )


async def consent_of(db: Executor, guild_id: int, user_id: int) -> Consent | None:
    return await fetch_one_as(
        db,
        Consent,
        "SELECT state, changed_at, changed_by, by_admin FROM member_consent"
        " WHERE guild_id = $1 AND user_id = $2",
        guild_id,
        user_id,
    )


async def unstorable_authors(db: Executor, guild_id: int, author_ids: list[int]) -> set[int]:
    """Which of these authors may not be stored in the guild (opted out, or not opted in where
    the guild asks for it): an import says how many of their messages it left out."""
    rows = await db.fetch(
        "SELECT m.author_id FROM (SELECT $1::bigint AS guild_id, a AS author_id"
        " FROM unnest($2::bigint[]) AS a) m WHERE NOT " + STORABLE.format(row="m"),
        guild_id,
        sorted(set(author_ids)),
    )
    return {row["author_id"] for row in rows}


async def is_remembered(db: Executor, guild_id: int, user_id: int) -> bool:
    """Whether memory may be built and used for the member (not opted out, and opted in where
    the guild asks for it)."""
    return bool(
        await db.fetchval(
            "SELECT " + STORABLE.format(row="m") + " FROM (SELECT $1::bigint AS guild_id,"
            " $2::bigint AS author_id) m",
            guild_id,
            user_id,
        )
    )


async def consent_and_remembered(
    db: Executor, guild_id: int, user_id: int
) -> tuple[Consent | None, bool]:
    """The member's recorded choice (None: never chose) and `is_remembered`, in one query."""
    row = await db.fetchrow(
        "SELECT c.state, c.changed_at, c.changed_by, c.by_admin, "
        + STORABLE.format(row="m")
        + " AS remembered FROM (SELECT $1::bigint AS guild_id, $2::bigint AS author_id) m"
        " LEFT JOIN member_consent c ON c.guild_id = m.guild_id AND c.user_id = m.author_id",
        guild_id,
        user_id,
    )
    assert row is not None  # the FROM clause is one row
    consent = None
    if row["state"] is not None:
        consent = Consent(row["state"], row["changed_at"], row["changed_by"], row["by_admin"])
    return consent, bool(row["remembered"])


async def guild_consents(
    db: Executor, guild_id: int, limit: int
) -> tuple[str, dict[int, Consent]] | None:
    """The guild's storage mode and every member's recorded choice, in one query; None when
    more than `limit` members chose (then each is read alone). `remembered` answers from them
    as `STORABLE` does in SQL."""
    rows = await db.fetch(
        """
        SELECT g.storage, c.user_id, c.state, c.changed_at, c.changed_by, c.by_admin
        FROM (SELECT COALESCE((SELECT settings->>'storage' FROM guilds WHERE guild_id = $1),
                              'everyone') AS storage) g
        LEFT JOIN LATERAL (SELECT * FROM member_consent WHERE guild_id = $1 LIMIT $2 + 1) c
          ON true
        """,
        guild_id,
        limit,
    )
    chose = {
        row["user_id"]: Consent(row["state"], row["changed_at"], row["changed_by"], row["by_admin"])
        for row in rows
        if row["user_id"] is not None
    }
    if len(chose) > limit:
        return None
    return str(rows[0]["storage"]), chose


def remembered(storage: str, consent: Consent | None) -> bool:
    """`STORABLE` for a member whose choice is `consent` in a guild storing `storage`."""
    state = consent.state if consent is not None else None
    return state != "out" and (storage != "opted-in" or state == "in")


async def delete_messages_of(db: Executor, guild_id: int, user_id: int) -> int:
    """The last sweep after an opt-out: any message of theirs a write in flight stored."""
    return await execute_counted(
        db, "DELETE FROM messages WHERE guild_id = $1 AND author_id = $2", guild_id, user_id
    )


async def unconsented_members(db: Executor, guild_id: int) -> list[int]:
    """Members held in the guild (directory or messages) who never opted in: the ones a switch
    to `storage = opted-in` concerns."""
    rows = await db.fetch(
        """
        SELECT user_id FROM members WHERE guild_id = $1
        UNION
        SELECT DISTINCT author_id FROM messages WHERE guild_id = $1
        EXCEPT
        SELECT user_id FROM member_consent WHERE guild_id = $1 AND state = 'in'
        """,
        guild_id,
    )
    return sorted(row[0] for row in rows)
