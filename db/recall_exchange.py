"""The messages around a recalled one that its exchange is made of: the message it replies to,
the messages that reply to it, and the lines said just before and after it in its channel,
bounded by its episode (V018) when one holds it, else by NEIGHBOUR_HOURS. Which of these make
the exchange is decided in memory/recall/_exchange.py; this only reads them, in one round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from db.recall import Exclusions
from db.recall_hits import NEIGHBOUR_HOURS
from db.rows import by_column, fetch_as
from db.types import Executor

# Lines read on each side of a hit (the exchange keeps fewer: see memory/recall/_exchange.py).
LINES_BEFORE = 4
LINES_AFTER = 6
# Replies to a hit read at most.
REPLIES = 3


@dataclass(frozen=True, slots=True)
class Around:
    """One message near a hit: `rel` is "answered" (the hit replies to it), "reply" (it
    replies to the hit), "before" or "after" (in the channel, within the hit's episode)."""

    hit_id: int
    rel: str
    message_id: int
    channel_id: int
    author_id: int
    created_at: datetime
    content: str
    reply_to_id: int | None


_KEEP = (
    "m.guild_id = $1 AND NOT m.deleted AND m.content <> ''"
    " AND m.message_id <> ALL($6::bigint[])"
    " AND ($7::bigint IS NULL OR (m.author_id <> $7 AND NOT $7 = ANY(m.mention_ids)))"
    " AND ($8::text IS NULL OR m.content !~* $8)"
)
# The lines on each side are the channel's nearest few, read in order from the hit through the
# channel's (channel_id, message_id) index and stopped by LIMIT; the episode and time bounds
# judge those few after the LIMIT (ids grow with time: behind a line past a bound, every line
# is past it too). As conditions of the read itself the planner could not estimate them, and
# read each hit's whole channel side instead (a bitmap scan and a sort: 100 ms for 36 hits in
# a 200,000-message guild of 50 channels; tests/db/test_query_plans.py); and a hit after a
# quiet spell read its channel's whole history looking for a line within the bounds.
_COLUMNS = "m.message_id, m.channel_id, m.author_id, m.created_at, m.content, m.reply_to_id"
_AROUND = f"""
    SELECT h.hit_id, n.rel, n.message_id, n.channel_id, n.author_id, n.created_at, n.content,
           n.reply_to_id
    FROM unnest($2::bigint[], $3::bigint[], $4::timestamptz[], $5::bigint[])
         AS h(hit_id, channel_id, at, reply_to)
    LEFT JOIN LATERAL (
        SELECT e.first_message_id AS first_id, e.last_message_id AS last_id
        FROM episodes e
        WHERE e.channel_id = h.channel_id AND e.guild_id = $1
          AND e.first_message_id <= h.hit_id AND e.last_message_id >= h.hit_id
        ORDER BY e.first_message_id DESC LIMIT 1
    ) ep ON true
    CROSS JOIN LATERAL (
        (SELECT * FROM (SELECT 'before' AS rel, {_COLUMNS} FROM messages m
            WHERE m.channel_id = h.channel_id AND m.message_id < h.hit_id AND {_KEEP}
            ORDER BY m.message_id DESC LIMIT {LINES_BEFORE}) b
         WHERE b.message_id >= coalesce(ep.first_id, 0)
           AND b.created_at - h.at BETWEEN interval '-{NEIGHBOUR_HOURS} hours' AND interval '0')
        UNION ALL
        (SELECT * FROM (SELECT 'after' AS rel, {_COLUMNS} FROM messages m
            WHERE m.channel_id = h.channel_id AND m.message_id > h.hit_id AND {_KEEP}
            ORDER BY m.message_id LIMIT {LINES_AFTER}) a
         WHERE a.message_id <= coalesce(ep.last_id, 9223372036854775807)
           AND a.created_at - h.at BETWEEN interval '0' AND interval '{NEIGHBOUR_HOURS} hours')
        UNION ALL
        (SELECT 'answered', {_COLUMNS} FROM messages m
         WHERE m.message_id = h.reply_to AND m.channel_id = h.channel_id AND {_KEEP})
        UNION ALL
        (SELECT 'reply', {_COLUMNS} FROM messages m
         WHERE m.reply_to_id = h.hit_id AND m.channel_id = h.channel_id AND {_KEEP}
         ORDER BY m.message_id LIMIT {REPLIES})
    ) n
"""


async def around(
    db: Executor,
    guild_id: int,
    hits: Sequence[tuple[int, int, datetime, int | None]],
    exclude: Exclusions,
) -> list[Around]:
    """What may make up the exchange of each (message id, channel id, time, reply-to id): its
    channel only (a viewer who may read the hit may read them), never what `exclude` names."""
    if not hits:
        return []
    return await fetch_as(
        db,
        Around,
        _AROUND,
        guild_id,
        *by_column(hits),
        *exclude.arguments(),
    )
