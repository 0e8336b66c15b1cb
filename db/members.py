"""Member directory queries: upsert from Discord events/imports, look up by id or any name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import asyncpg

from db.rows import changed, from_row
from db.types import Executor
from memory.core.models import Member
from memory.core.surrogates import clean_name, clean_text

_COLUMNS = "guild_id, user_id, username, global_name, nickname, aliases, is_bot"


def _member(row: asyncpg.Record) -> Member:
    return from_row(Member, row, aliases=tuple(row["aliases"] or ()))


async def upsert_members(
    db: Executor, members: Iterable[Member], *, nicknames_known: bool = False
) -> None:
    """Insert or refresh members. Known names are kept when the update does not carry one,
    and a changed nickname/global name is remembered as an alias.

    `nicknames_known`: the updates come from guild members (a Discord member event), so a
    missing nickname means "cleared", not "not carried": the old one stops being the display
    name and stays an alias.
    """
    rows = [
        (
            m.guild_id,
            m.user_id,
            clean_name(m.username),
            clean_name(m.global_name),
            clean_name(m.nickname),
            [alias for alias in map(clean_name, m.aliases) if alias],
            m.is_bot,
            nicknames_known,
        )
        for m in members
    ]
    if not rows:
        return
    await db.executemany(
        """
        INSERT INTO members AS m (guild_id, user_id, username, global_name, nickname, aliases,
                                  is_bot)
        SELECT $1, $2, $3, $4, $5, $6, $7
        WHERE NOT EXISTS (SELECT 1 FROM member_consent c  -- opted out: not even their names
                          WHERE c.guild_id = $1 AND c.user_id = $2 AND c.state = 'out')
        ON CONFLICT (guild_id, user_id) DO UPDATE SET
            username = COALESCE(EXCLUDED.username, m.username),
            global_name = COALESCE(EXCLUDED.global_name, m.global_name),
            nickname = CASE WHEN $8::boolean THEN EXCLUDED.nickname
                            ELSE COALESCE(EXCLUDED.nickname, m.nickname) END,
            aliases = ARRAY(
                SELECT DISTINCT a FROM unnest(
                    m.aliases || EXCLUDED.aliases
                    || CASE WHEN ($8::boolean OR EXCLUDED.nickname IS NOT NULL)
                            AND m.nickname IS NOT NULL
                            AND EXCLUDED.nickname IS DISTINCT FROM m.nickname
                       THEN ARRAY[m.nickname] ELSE '{}' END
                    || CASE WHEN EXCLUDED.global_name IS NOT NULL AND m.global_name IS NOT NULL
                            AND EXCLUDED.global_name <> m.global_name
                       THEN ARRAY[m.global_name] ELSE '{}' END
                ) AS a WHERE a IS NOT NULL AND a <> ''
            ),
            is_bot = EXCLUDED.is_bot,
            updated_at = now()
        """,
        rows,
    )


async def add_alias(db: Executor, guild_id: int, user_id: int, alias: str) -> None:
    """Record another name for a member ("alice is Sergey" makes Sergey an alias)."""
    await db.execute(
        """
        INSERT INTO members (guild_id, user_id, aliases) VALUES ($1, $2, ARRAY[$3::text])
        ON CONFLICT (guild_id, user_id) DO UPDATE SET
            aliases = CASE WHEN $3 = ANY(members.aliases) THEN members.aliases
                           ELSE members.aliases || $3::text END,
            updated_at = now()
        """,
        guild_id,
        user_id,
        clean_text(alias),
    )


async def remove_alias(db: Executor, guild_id: int, user_id: int, alias: str) -> bool:
    """Stop knowing a member by `alias` (any case); whether they had it."""
    result = await db.execute(
        """
        UPDATE members SET aliases = ARRAY(SELECT a FROM unnest(aliases) AS a
                                           WHERE lower(a) <> lower($3)),
                           updated_at = now()
        WHERE guild_id = $1 AND user_id = $2
          AND EXISTS (SELECT 1 FROM unnest(aliases) AS a WHERE lower(a) = lower($3))
        """,
        guild_id,
        user_id,
        clean_text(alias),
    )
    return changed(result) > 0


async def get_member(db: Executor, guild_id: int, user_id: int) -> Member | None:
    row = await db.fetchrow(
        f"SELECT {_COLUMNS} FROM members WHERE guild_id = $1 AND user_id = $2", guild_id, user_id
    )
    return _member(row) if row else None


async def get_members(db: Executor, guild_id: int, user_ids: Sequence[int]) -> dict[int, Member]:
    rows = await db.fetch(
        f"SELECT {_COLUMNS} FROM members WHERE guild_id = $1 AND user_id = ANY($2::bigint[])",
        guild_id,
        list(user_ids),
    )
    return {row["user_id"]: _member(row) for row in rows}


async def find_by_name(db: Executor, guild_id: int, name: str) -> list[Member]:
    """Members of the guild answering to `name` (case-insensitive, any name or alias)."""
    needle = name.strip().lstrip("@").lower()
    if not needle:
        return []
    rows = await db.fetch(
        f"""
        SELECT {_COLUMNS} FROM members
        WHERE guild_id = $1 AND (
            lower(username) = $2 OR lower(global_name) = $2 OR lower(nickname) = $2
            OR EXISTS (SELECT 1 FROM unnest(aliases) a WHERE lower(a) = $2)
        )
        ORDER BY user_id
        """,
        guild_id,
        needle,
    )
    return [_member(row) for row in rows]


async def list_members(db: Executor, guild_id: int) -> list[Member]:
    rows = await db.fetch(
        f"SELECT {_COLUMNS} FROM members WHERE guild_id = $1 ORDER BY user_id", guild_id
    )
    return [_member(row) for row in rows]
