"""Privacy queries: read and delete every row held about one member of one guild.

The known tables are handled explicitly. Any other table that has both `guild_id` and a
member column (`user_id`, `author_id`, `member_id`) is found through the catalog and swept too,
so a table added by a later migration cannot silently keep a purged member's data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from db.rows import fetch_column
from db.types import Executor

# Tables this module handles by name; everything else goes through the generic sweep.
KNOWN_TABLES = frozenset(
    {
        "guilds",
        "members",
        "messages",
        "user_facts",
        "fact_history",
        "forgotten_statements",
        "summary_days",
        "daily_summaries",
        "historical_summaries",
        "merged_contexts",
        "schema_migrations",
        # Kept through a purge on purpose: the member's choice is what keeps them out.
        "member_consent",
    }
)
_MEMBER_COLUMNS = ("user_id", "author_id", "member_id")


@dataclass
class PurgeCounts:
    """Rows deleted (or anonymised) per table, and the guild-days whose summaries changed."""

    rows: dict[str, int] = field(default_factory=dict)
    stale_days: list[date] = field(default_factory=list)
    dropped_days: list[date] = field(default_factory=list)
    # Other members whose cached context was dropped because it could carry the purged member.
    others_invalidated: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.rows.values())


async def guild_exists(db: Executor, guild_id: int) -> bool:
    """A guild we have a row, a member or a message for."""
    return bool(
        await db.fetchval(
            """
            SELECT EXISTS (SELECT 1 FROM guilds WHERE guild_id = $1)
                OR EXISTS (SELECT 1 FROM members WHERE guild_id = $1)
                OR EXISTS (SELECT 1 FROM messages WHERE guild_id = $1)
            """,
            guild_id,
        )
    )


async def guilds_named(db: Executor, name: str) -> list[int]:
    return await fetch_column(
        db, "SELECT guild_id FROM guilds WHERE lower(name) = lower($1) ORDER BY guild_id", name
    )


async def member_has_data(db: Executor, guild_id: int, user_id: int) -> bool:
    """True when any table holds something about the member in this guild."""
    return bool(
        await db.fetchval(
            """
            SELECT EXISTS (SELECT 1 FROM members WHERE guild_id = $1 AND user_id = $2)
                OR EXISTS (SELECT 1 FROM messages WHERE guild_id = $1 AND author_id = $2)
                OR EXISTS (SELECT 1 FROM user_facts WHERE guild_id = $1 AND user_id = $2)
                OR EXISTS (SELECT 1 FROM fact_history WHERE guild_id = $1 AND user_id = $2)
                OR EXISTS (SELECT 1 FROM forgotten_statements
                           WHERE guild_id = $1 AND user_id = $2)
                OR EXISTS (SELECT 1 FROM daily_summaries WHERE guild_id = $1 AND user_id = $2)
                OR EXISTS (SELECT 1 FROM historical_summaries
                           WHERE guild_id = $1 AND user_id = $2)
                OR EXISTS (SELECT 1 FROM merged_contexts WHERE guild_id = $1 AND user_id = $2)
                OR EXISTS (SELECT 1 FROM learned_facts
                           WHERE guild_id = $1 AND (user_id = $2 OR said_by = $2))
            """,
            guild_id,
            user_id,
        )
    )


async def other_member_tables(db: Executor) -> list[tuple[str, str]]:
    """(table, member column) of every table outside KNOWN_TABLES keyed by guild and member."""
    rows = await db.fetch(
        """
        SELECT c.table_name, c.column_name
        FROM information_schema.columns c
        JOIN information_schema.tables t
          ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
          AND c.column_name = ANY($1::text[])
          AND EXISTS (SELECT 1 FROM information_schema.columns g
                      WHERE g.table_schema = c.table_schema AND g.table_name = c.table_name
                        AND g.column_name = 'guild_id')
        ORDER BY c.table_name, c.column_name
        """,
        list(_MEMBER_COLUMNS),
    )
    return [
        (row["table_name"], row["column_name"])
        for row in rows
        if row["table_name"] not in KNOWN_TABLES
    ]


def ident(name: str) -> str:
    """A table or column name quoted for SQL."""
    return '"' + name.replace('"', '""') + '"'


async def fetch_member_data(db: Executor, guild_id: int, user_id: int) -> dict[str, Any]:
    """Everything held about the member, table by table, as plain dicts."""

    async def rows(sql: str) -> list[dict[str, Any]]:
        return [dict(row) for row in await db.fetch(sql, guild_id, user_id)]

    member = await rows("SELECT * FROM members WHERE guild_id = $1 AND user_id = $2")
    facts = await rows("SELECT * FROM user_facts WHERE guild_id = $1 AND user_id = $2")
    merged = await rows("SELECT * FROM merged_contexts WHERE guild_id = $1 AND user_id = $2")
    data: dict[str, Any] = {
        "member": member[0] if member else None,
        "messages": await rows(
            "SELECT message_id, guild_id, channel_id, author_id, content, created_at,"
            " reply_to_id, mention_ids, author_is_bot, edited_at, deleted"
            " FROM messages WHERE guild_id = $1 AND author_id = $2"
            " ORDER BY created_at, message_id"
        ),
        "facts": facts[0] if facts else None,
        "fact_history": await rows(
            "SELECT * FROM fact_history WHERE guild_id = $1 AND user_id = $2 ORDER BY id"
        ),
        "forgotten_statements": await rows(
            "SELECT * FROM forgotten_statements WHERE guild_id = $1 AND user_id = $2 ORDER BY id"
        ),
        # What the member asked the bot to remember or forget about others: their words, not
        # the other member's whole blob.
        "fact_changes_by_member": await rows(
            "SELECT id, user_id AS about_user_id, command, statement, source_message_id,"
            " created_at FROM fact_history"
            " WHERE guild_id = $1 AND actor_id = $2 AND user_id <> $2 ORDER BY id"
        ),
        "forget_requests_by_member": await rows(
            "SELECT id, user_id AS about_user_id, statement, created_at"
            " FROM forgotten_statements"
            " WHERE guild_id = $1 AND actor_id = $2 AND user_id <> $2 ORDER BY id"
        ),
        "daily_summaries": await rows(
            "SELECT guild_id, day, user_id, summary FROM daily_summaries"
            " WHERE guild_id = $1 AND user_id = $2 ORDER BY day"
        ),
        "historical_summaries": await rows(
            "SELECT * FROM historical_summaries WHERE guild_id = $1 AND user_id = $2"
            " ORDER BY end_day"
        ),
        "merged_context": merged[0] if merged else None,
        # What chat taught the bot about others from this member's words (said_by them).
        "learned_facts_said_by_member": await rows(
            "SELECT id, user_id AS about_user_id, subject, statement, message_ids, first_seen,"
            " last_seen, current FROM learned_facts"
            " WHERE guild_id = $1 AND said_by = $2 AND user_id <> $2 ORDER BY id"
        ),
    }
    data["other_tables"] = await _other_tables_data(db, guild_id, user_id)
    return data


async def _other_tables_data(
    db: Executor, guild_id: int, user_id: int
) -> dict[str, list[dict[str, Any]]]:
    """The member's rows in tables added after this module (found through the catalog)."""
    other: dict[str, list[dict[str, Any]]] = {}
    for table, column in await other_member_tables(db):
        found = await db.fetch(
            f"SELECT * FROM {ident(table)} WHERE guild_id = $1 AND {ident(column)} = $2",
            guild_id,
            user_id,
        )
        if found:
            other.setdefault(table, []).extend(dict(row) for row in found)
    return other
