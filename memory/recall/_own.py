"""A named member's own lines on what is asked, beyond the hits.

"What activities does Melanie do?" is answered by lines Melanie said over months ("signed up
for a pottery class", "off to go swimming with the kids", "we went camping"), each a hit of
its own that ranks below the first dozen: the hits, each with its exchange, fill a reply's
recall budget first. On LoCoMo-dev (bench/locomo.py) 97% of the evidence of such questions
is the named member's own words. So a reply's search also runs the question against that
member's messages alone (the full-text lanes and the nearest in meaning, as the main search,
restricted to their author), and the lines it finds come back alone, without their
exchanges: a short line each, so a reply holds several of them in the room of one hit.

Only when the question names exactly one member, and only messages the reader may read; the
lookup runs beside the main search on connections of its own, so a reply waits for the
slower of the two, not their sum.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace

import asyncpg

from db.recall import MessageMatch
from memory.recall._hits import fused
from memory.recall._lanes import LaneSearch, Query
from memory.recall._semantic import drop, in_time

_log = logging.getLogger(__name__)

# How long the lines wait for their lookup by meaning after their full-text lane is done, at
# least (as the main search's grace).
OWN_GRACE_SECONDS = 0.1


def own_query(query: Query, wanted: int) -> Query | None:
    """The query for the named member's own lines, or None when there is no one member to ask
    about (none or several named, or a search already kept to another member's messages)."""
    if wanted < 1 or len(query.named) != 1 or query.user_id not in (None, query.named[0]):
        return None
    return replace(query, user_id=query.named[0], limit=wanted)


async def own_lines(
    lanes: LaneSearch,
    query: Query,
    meaning: asyncio.Future[list[MessageMatch]],
    *,
    deadline: float,
) -> list[MessageMatch]:
    """The member's lines on the query's words, best first (the full-text and the nearest in
    meaning fused), at most `query.limit`; the lookup by meaning is waited for until
    `deadline` (time.monotonic()). Nothing when the lane runs out of time."""
    try:
        messages, _, _ = await lanes.lanes(query, feedback=True)
    except (asyncpg.QueryCanceledError, TimeoutError):
        _log.warning("recall own-lines lane in guild %s hit its time limit", query.guild_id)
        drop(meaning)
        return []
    except BaseException:
        drop(meaning)
        raise
    similar = await in_time(meaning, max(OWN_GRACE_SECONDS, deadline - time.monotonic()))
    author = query.user_id
    found = fused(messages, similar) if similar else messages
    return [m for m in found if m.author_id == author][: query.limit]
