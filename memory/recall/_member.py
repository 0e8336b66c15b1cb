"""The member lane: when a question names a member, what they said that carries news.

"What is Sam into these days?" or "what does Alex do all day?" are answered by
statements that need not share a word with the question ("finally ran my first ten
kilometres", "I just started at the hospital"), while the member's chatter that does share one
("the weather is awful again") says nothing. So besides the matches, a reply gets the named
member's most informative statements over their history (`db/recall_statements.py`: rare
words, named things, first person; greetings and reactions score nothing), the question's
own words still counting, so the statements about what was asked come first. These are the
member's own words with their dates, which is what "what do you know about X?" needs too.
"""

from __future__ import annotations

import logging

import asyncpg

from db.recall import Exclusions, MessageMatch, Scope, Weighted, search_session
from db.recall_statements import member_statements
from memory.core.viewer import Viewer
from memory.language import is_news

_log = logging.getLogger(__name__)


# Rows fetched per wanted statement: some are dropped after (forgotten statements, repeats).
OVERFETCH = 3
# A line of fewer words is small talk or an answer, not a statement.
STATEMENT_WORDS = 8


async def member_lane(
    pool: asyncpg.Pool,
    guild_id: int,
    member_id: int,
    terms: tuple[Weighted, ...],
    *,
    reader: Viewer,
    exclude: Exclusions,
    wanted: int,
    news_first: bool = False,
) -> list[MessageMatch]:
    """`member_id`'s best statements the reader may read, best first (`wanted` of them and
    some spare); nothing when none are wanted, or when it runs out of time (the matches of
    the search still come). `news_first`: the question asks what is new with the member, so
    what happened to them ("finally ran my first ten kilometres") goes before what lasts ("my
    ferret is called Bun"), each kind best first."""
    if wanted < 1:
        return []
    try:
        async with search_session(pool) as db:
            found = await member_statements(
                db,
                Scope(guild_id, reader.channel_ids),
                member_id,
                terms,
                exclude=exclude,
                limit=wanted * OVERFETCH * (2 if news_first else 1),
            )
    except (asyncpg.QueryCanceledError, TimeoutError):
        _log.warning("recall member lane in guild %s hit its time limit", guild_id)
        return []
    if news_first:
        found = sorted(found, key=lambda match: not is_news(match.content))
    return found


def statements_of(member_id: int, messages: list[MessageMatch]) -> int:
    """How many of `messages` are the member's own statements (not short lines): a question
    whose words found them needs fewer of the member's others."""
    return sum(
        m.author_id == member_id and len(m.content.split()) >= STATEMENT_WORDS for m in messages
    )
