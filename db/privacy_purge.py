"""Purging one member of one guild: their rows deleted, their mentions in others' messages
scrubbed, what others' notes, summaries, histories, contexts, episodes and digests may carry
of them (by name, by quote, or paraphrased by a model) dropped at once (db/privacy_quotes.py)
and their days marked stale to be closed again without them, and any table a later migration
adds with a member column swept too. Runs in one transaction.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from db.learned import unlearn_said_by
from db.privacy import PurgeCounts, ident, other_member_tables
from db.privacy_quotes import (
    blank_digests,
    blank_episodes,
    drop_passes_reading,
    noted_days,
    quotes_of,
)
from db.rows import execute_counted
from db.types import Connection

# Text put where another member's message mentioned the purged member (`<@id>`).
MENTION_PLACEHOLDER = "@someone"


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
        changed = await execute_counted(self.connection, sql, *args)
        self.counts.rows[label] = self.counts.rows.get(label, 0) + changed


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
    quotes = await quotes_of(connection, g, u)
    days = await _affected_days(connection, g, u, timezone, mention, patterns)
    days = sorted(set(days) | set(await noted_days(connection, g, patterns, quotes)))
    # Others' notes that read or quote them, while their messages still find the passes.
    purge.counts.rows["others_day_passes"] = await drop_passes_reading(
        connection, g, u, mention=mention, patterns=patterns, quotes=quotes
    )
    for label, sql in _OWN_ROWS[:1]:
        await purge.run(label, sql, g, u)
    await _scrub_mentions(purge, mention)
    for label, sql in _OWN_ROWS[1:]:
        await purge.run(label, sql, g, u)
    await _drop_others_derived(purge, days, patterns, quotes)
    await _drop_contexts_of(purge, said)
    for table, column in await other_member_tables(connection):
        await purge.run(
            table,
            f"DELETE FROM {ident(table)} WHERE guild_id = $1 AND {ident(column)} = $2",
            g,
            u,
        )
    if days:
        await _settle_days(purge, days, timezone)
    counts = purge.counts
    counts.rows = {label: n for label, n in counts.rows.items() if n}
    return counts


async def _affected_days(
    connection: Connection, g: int, u: int, timezone: str, mention: str, patterns: list[str]
) -> list[date]:
    """Days the member spoke on, was mentioned or named on, or was summarised on."""
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
    return sorted(row["day"] for row in affected)


async def _scrub_mentions(purge: _Purge, mention: str) -> None:
    """Other members' messages keep their words; a mention of the member becomes @someone."""
    await purge.run(
        "mentions_scrubbed",
        """
        UPDATE messages SET mention_ids = array_remove(mention_ids, $2::bigint),
                            content = regexp_replace(content, $3, $4, 'g')
        WHERE guild_id = $1 AND ($2 = ANY(mention_ids) OR content ~ $3)
        """,
        purge.g,
        purge.u,
        mention,
        MENTION_PLACEHOLDER,
    )


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


async def _drop_others_derived(
    purge: _Purge, days: list[date], patterns: list[str], quotes: list[str]
) -> None:
    """Other members' derived text that may carry the member, by name, by quote or (written by
    a model) by paraphrase: dropped, and recomputed on demand from what is left."""
    connection, counts, g, u = purge.connection, purge.counts, purge.g, purge.u
    # Narratives ending within a window of her days read them; any other that names or quotes
    # her (a later one rolled forward) goes too.
    await purge.run(
        "others_historical_summaries",
        "DELETE FROM historical_summaries WHERE guild_id = $1"
        " AND ((end_day >= $2::date AND end_day <= $3::date + 7)"
        " OR summary ~* ANY($4::text[]) OR EXISTS (SELECT 1 FROM unnest($5::text[]) q"
        " WHERE strpos(lower(summary), q) > 0))",
        g,
        days[0] if days else None,
        days[-1] if days else None,
        patterns,
        quotes,
    )
    # Everyone summarised on her days: their summaries go (the days are closed again without
    # her), and so do their stored and cached contexts and histories.
    others = {
        row["user_id"]
        for row in await connection.fetch(
            "SELECT DISTINCT user_id FROM daily_summaries WHERE guild_id = $1"
            " AND day = ANY($2::date[])",
            g,
            days,
        )
    }
    await purge.run(
        "others_daily_summaries",
        "DELETE FROM daily_summaries WHERE guild_id = $1 AND day = ANY($2::date[])",
        g,
        days,
    )
    dropped_contexts = await connection.fetch(
        """
        DELETE FROM merged_contexts WHERE guild_id = $1
          AND (context ~* ANY($3::text[]) OR sources::text LIKE '%' || $2::bigint::text || '%'
               OR user_id = ANY($4::bigint[])
               OR EXISTS (SELECT 1 FROM unnest($5::text[]) q WHERE strpos(lower(context), q) > 0))
        RETURNING user_id
        """,
        g,
        u,
        patterns,
        sorted(others),
        quotes,
    )
    counts.rows["others_merged_contexts"] = counts.rows.get("others_merged_contexts", 0) + len(
        dropped_contexts
    )
    counts.rows["others_episodes"] = await blank_episodes(connection, g, patterns, quotes)
    counts.rows["digests"] = await blank_digests(connection, g, days, patterns, quotes)
    others |= {row["user_id"] for row in dropped_contexts}
    counts.others_invalidated = sorted(others - {u})


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
