"""Privacy queries: read and delete every row held about one member of one guild.

The known tables are handled explicitly. Any other table that has both `guild_id` and a
member column (`user_id`, `author_id`, `member_id`) is found through the catalog and swept too,
so a table added by a later migration cannot silently keep a purged member's data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from db.learned import unlearn_said_by
from db.types import Connection, Executor

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
# Text put where another member's message mentioned the purged member (`<@id>`).
MENTION_PLACEHOLDER = "@someone"


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
    rows = await db.fetch(
        "SELECT guild_id FROM guilds WHERE lower(name) = lower($1) ORDER BY guild_id", name
    )
    return [row["guild_id"] for row in rows]


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


def _ident(name: str) -> str:
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
    other: dict[str, list[dict[str, Any]]] = {}
    for table, column in await other_member_tables(db):
        found = await rows(
            f"SELECT * FROM {_ident(table)} WHERE guild_id = $1 AND {_ident(column)} = $2"
        )
        if found:
            other.setdefault(table, []).extend(found)
    data["other_tables"] = other
    return data


def name_patterns(names: list[str]) -> list[str]:
    """PostgreSQL regexes matching any of the names as a whole word (names < 3 chars skipped)."""
    patterns = []
    for name in names:
        name = name.strip()
        if len(name) < 3:
            continue
        patterns.append(r"(^|[^[:alnum:]_])" + re.escape(name) + r"($|[^[:alnum:]_])")
    return patterns


# The member's own rows: (label, statement with $1 guild, $2 member).
_OWN_ROWS: tuple[tuple[str, str], ...] = (
    ("messages", "DELETE FROM messages WHERE guild_id = $1 AND author_id = $2"),
    ("members", "DELETE FROM members WHERE guild_id = $1 AND user_id = $2"),
    ("user_facts", "DELETE FROM user_facts WHERE guild_id = $1 AND user_id = $2"),
    ("fact_history", "DELETE FROM fact_history WHERE guild_id = $1 AND user_id = $2"),
    (
        "fact_history_anonymised",
        "UPDATE fact_history SET actor_id = NULL, source_message_id = NULL"
        " WHERE guild_id = $1 AND actor_id = $2",
    ),
    (
        "forgotten_statements",
        "DELETE FROM forgotten_statements WHERE guild_id = $1 AND user_id = $2",
    ),
    (
        "forgotten_anonymised",
        "UPDATE forgotten_statements SET actor_id = NULL WHERE guild_id = $1 AND actor_id = $2",
    ),
    ("daily_summaries", "DELETE FROM daily_summaries WHERE guild_id = $1 AND user_id = $2"),
    (
        "historical_summaries",
        "DELETE FROM historical_summaries WHERE guild_id = $1 AND user_id = $2",
    ),
    ("merged_contexts", "DELETE FROM merged_contexts WHERE guild_id = $1 AND user_id = $2"),
)


class _Purge:
    """One purge's connection, subject and running counts."""

    def __init__(self, connection: Connection, guild_id: int, user_id: int) -> None:
        self.connection = connection
        self.g, self.u = guild_id, user_id
        self.counts = PurgeCounts()

    async def run(self, label: str, sql: str, *args: Any) -> None:
        status = await self.connection.execute(sql, *args)
        self.counts.rows[label] = self.counts.rows.get(label, 0) + int(status.split()[-1])


async def purge_member_rows(
    connection: Connection,
    guild_id: int,
    user_id: int,
    *,
    timezone: str,
    names: list[str],
) -> PurgeCounts:
    """Delete everything about the member; call inside a transaction.

    Days the member spoke on, was summarised on, was mentioned on, or was named in someone
    else's summary are "affected": a day that still has other members becomes stale so it is
    re-summarised without them, a day that was only theirs loses its summary row.
    """
    purge = _Purge(connection, guild_id, user_id)
    g, u = guild_id, user_id
    patterns = name_patterns(names)
    mention = f"<@!?{u}>"
    # What chat taught about others from their words goes too (before their messages do).
    unlearned, pruned, said = await unlearn_said_by(connection, g, u)
    purge.counts.rows.update(learned_facts_said_by=unlearned, learned_facts_provenance=pruned)
    affected = await connection.fetch(
        """
        SELECT DISTINCT (created_at AT TIME ZONE $3)::date AS day FROM messages
        WHERE guild_id = $1 AND (author_id = $2 OR $2 = ANY(mention_ids) OR content ~ $4)
        UNION
        SELECT day FROM daily_summaries
        WHERE guild_id = $1 AND (user_id = $2 OR summary ~* ANY($5::text[]))
        """,
        g,
        u,
        timezone,
        mention,
        patterns,
    )
    days = sorted(row["day"] for row in affected)
    for label, sql in _OWN_ROWS[:1]:
        await purge.run(label, sql, g, u)
    await purge.run(
        "mentions_scrubbed",
        """
        UPDATE messages SET mention_ids = array_remove(mention_ids, $2::bigint),
                            content = regexp_replace(content, $3, $4, 'g')
        WHERE guild_id = $1 AND ($2 = ANY(mention_ids) OR content ~ $3)
        """,
        g,
        u,
        mention,
        MENTION_PLACEHOLDER,
    )
    for label, sql in _OWN_ROWS[1:]:
        await purge.run(label, sql, g, u)
    await _drop_others_derived(purge, days, patterns)
    await _drop_contexts_of(purge, said)
    for table, column in await other_member_tables(connection):
        await purge.run(
            table,
            f"DELETE FROM {_ident(table)} WHERE guild_id = $1 AND {_ident(column)} = $2",
            g,
            u,
        )
    if days:
        await _settle_days(purge, days, timezone)
    counts = purge.counts
    counts.rows = {label: n for label, n in counts.rows.items() if n}
    return counts


async def _drop_contexts_of(purge: _Purge, others: list[int]) -> None:
    """Stored contexts of those the member's words taught facts about: never served again."""
    if others:
        await purge.run(
            "others_merged_contexts",
            "DELETE FROM merged_contexts WHERE guild_id = $1 AND user_id = ANY($2::bigint[])",
            purge.g,
            others,
        )
    purge.counts.others_invalidated = sorted(set(purge.counts.others_invalidated) | set(others))


async def _drop_others_derived(purge: _Purge, days: list[date], patterns: list[str]) -> None:
    """Other members' derived text that may carry the member: recomputed on demand."""
    connection, counts, g, u = purge.connection, purge.counts, purge.g, purge.u
    if days:
        # Narratives ending within a window of her days read them; a later one rolled forward
        # may still carry a sentence about her, so it goes too when it names her.
        await purge.run(
            "others_historical_summaries",
            "DELETE FROM historical_summaries WHERE guild_id = $1 AND end_day >= $2::date"
            " AND (end_day <= $3::date + 7 OR summary ~* ANY($4::text[]))",
            g,
            days[0],
            days[-1],
            patterns,
        )
    dropped_contexts = await connection.fetch(
        """
        DELETE FROM merged_contexts WHERE guild_id = $1
          AND (context ~* ANY($3::text[]) OR sources::text LIKE '%' || $2::bigint::text || '%')
        RETURNING user_id
        """,
        g,
        u,
        patterns,
    )
    counts.rows["others_merged_contexts"] = counts.rows.get("others_merged_contexts", 0) + len(
        dropped_contexts
    )
    counts.others_invalidated = sorted(row["user_id"] for row in dropped_contexts)
    if days:
        # their historical summaries were dropped above: their cached contexts are stale too
        others = await connection.fetch(
            "SELECT DISTINCT user_id FROM daily_summaries WHERE guild_id = $1"
            " AND day = ANY($2::date[])",
            g,
            days,
        )
        counts.others_invalidated = sorted(
            set(counts.others_invalidated) | {row["user_id"] for row in others}
        )


async def _settle_days(purge: _Purge, days: list[date], timezone: str) -> None:
    """A day that still has other members becomes stale; a day only theirs loses its row."""
    connection, counts, g = purge.connection, purge.counts, purge.g
    kept = await connection.fetch(
        """
        UPDATE summary_days s SET stale = true
        WHERE s.guild_id = $1 AND s.day = ANY($2::date[])
          AND (EXISTS (SELECT 1 FROM daily_summaries d
                       WHERE d.guild_id = s.guild_id AND d.day = s.day)
               OR EXISTS (SELECT 1 FROM messages m
                          WHERE m.guild_id = s.guild_id
                            AND (m.created_at AT TIME ZONE $3)::date = s.day))
        RETURNING s.day
        """,
        g,
        days,
        timezone,
    )
    counts.stale_days = sorted(row["day"] for row in kept)
    dropped = await connection.fetch(
        "DELETE FROM summary_days WHERE guild_id = $1 AND day = ANY($2::date[])"
        " AND NOT (day = ANY($3::date[])) RETURNING day",
        g,
        days,
        counts.stale_days,
    )
    counts.dropped_days = sorted(row["day"] for row in dropped)
