"""Everything stored about one member that a context is made of, in one round trip.

A context starts from the member's facts, forgotten statements and learned facts; when it
cannot be built within a reply's budget it is served from what is stored (today's notes, the
last good merge, the latest daily summaries and narrative). Read one query each, that was seven
round trips a member, and in a burst of 100 replies to new members 70% of all queries: each
costs the bot's one process more CPU (asyncpg, the event loop) than the database's work.
Each part is the same rule as the query of its own module (`db.facts.get_facts`,
`get_forgotten`, `db.learned.current_facts`, `db.notes.day_notes`,
`db.contexts.get_merged_context`, `db.summaries.member_daily_summaries`,
`db.historical.latest_historical`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import asyncpg

from db.contexts import MergedContext, merged_from_row
from db.types import Executor


@dataclass(frozen=True, slots=True)
class LearnedLine:
    """A current learned fact as a context shows it."""

    statement: str
    last_seen: date


@dataclass(frozen=True, slots=True)
class StoredMemory:
    told: str | None  # the facts blob (None: nothing was ever remembered)
    forgotten: list[str]  # oldest first
    learned: list[LearnedLine]  # most recently confirmed first
    notes: list[str]  # today's notes, in the order of the passes that wrote them
    merged: MergedContext | None  # the last good context, whatever it was built from
    recent: list[tuple[date, str]]  # non-empty daily summaries of the window, oldest first
    narrative: tuple[date, str] | None  # the latest non-empty narrative up to `narrative_day`


_QUERY = """
SELECT f.blob AS told, fg.statements AS forgotten,
       lf.statements AS learned, lf.seen AS learned_seen,
       n.notes, mc.context, mc.content_hash, mc.sources, mc.computed_at,
       ds.days, ds.summaries, hs.end_day, hs.summary AS narrative
FROM (SELECT $1::bigint AS guild_id, $2::bigint AS user_id) me
LEFT JOIN user_facts f ON f.guild_id = me.guild_id AND f.user_id = me.user_id
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(statement ORDER BY id), '{}') AS statements
    FROM forgotten_statements WHERE guild_id = me.guild_id AND user_id = me.user_id
) fg
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(statement ORDER BY last_seen DESC, confidence DESC, id DESC),
                    '{}') AS statements,
           coalesce(array_agg(last_seen ORDER BY last_seen DESC, confidence DESC, id DESC),
                    '{}') AS seen
    FROM learned_facts WHERE guild_id = me.guild_id AND user_id = me.user_id AND current
) lf
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(note ORDER BY start_at), '{}') AS notes
    FROM day_notes
    WHERE guild_id = me.guild_id AND user_id = me.user_id AND day = $3 AND note <> ''
) n
LEFT JOIN merged_contexts mc ON mc.guild_id = me.guild_id AND mc.user_id = me.user_id
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(day ORDER BY day), '{}') AS days,
           coalesce(array_agg(summary ORDER BY day), '{}') AS summaries
    FROM daily_summaries
    WHERE guild_id = me.guild_id AND user_id = me.user_id AND day BETWEEN $4 AND $3
      AND summary <> ''
) ds
LEFT JOIN LATERAL (
    SELECT end_day, summary FROM historical_summaries
    WHERE guild_id = me.guild_id AND user_id = me.user_id AND end_day <= $5 AND summary <> ''
    ORDER BY end_day DESC LIMIT 1
) hs ON true
"""


async def stored_memory(
    db: Executor, guild_id: int, user_id: int, *, today: date, first_day: date, narrative_day: date
) -> StoredMemory:
    """The member's stored memory: daily summaries from `first_day` to `today`, the latest
    narrative ending on or before `narrative_day`."""
    row = await db.fetchrow(_QUERY, guild_id, user_id, today, first_day, narrative_day)
    assert row is not None  # the FROM clause is one row
    return StoredMemory(
        told=row["told"],
        forgotten=list(row["forgotten"]),
        learned=[
            LearnedLine(statement, seen)
            for statement, seen in zip(row["learned"], row["learned_seen"], strict=True)
        ],
        notes=list(row["notes"]),
        merged=_merged(row),
        recent=list(zip(row["days"], row["summaries"], strict=True)),
        narrative=(row["end_day"], row["narrative"]) if row["end_day"] is not None else None,
    )


def _merged(row: asyncpg.Record) -> MergedContext | None:
    return None if row["context"] is None else merged_from_row(row)
