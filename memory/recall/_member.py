"""The member lane: when a question names a member, what they said that carries news.

"Which new hobbies has Dana taken up?" or "what does Milo do for work?" are answered by
statements that need not share a word with the question ("tried pottery for the first time
today", "I just started at the hospital"), while the member's chatter that does share one
("work was chaos again") says nothing. So besides the matches, a reply gets the named
member's most informative statements over their history (`db/recall_statements.py`: rare
words, named things, first person; greetings and reactions score nothing), the question's
own words still counting, so the statements about what was asked come first. These are the
member's own words with their dates, which is what "what do you know about X?" needs too.
"""

from __future__ import annotations

import asyncpg

from db.recall import Exclusions, MessageMatch, Scope, Weighted, search_session
from db.recall_statements import member_statements
from memory.core.viewer import Viewer


async def member_lane(
    pool: asyncpg.Pool,
    guild_id: int,
    member_id: int,
    terms: tuple[Weighted, ...],
    *,
    reader: Viewer,
    exclude: Exclusions,
    limit: int,
) -> list[MessageMatch]:
    """`member_id`'s best statements the reader may read, best first (`limit` of them)."""
    if limit < 1:
        return []
    async with search_session(pool) as db:
        return await member_statements(
            db,
            Scope(guild_id, reader.channel_ids),
            member_id,
            terms,
            exclude=exclude,
            limit=limit,
        )
