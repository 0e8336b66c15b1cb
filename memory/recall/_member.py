"""The member lane: when a question names a member, what they said that carries news.

"What is Sam into these days?" or "what does Alex do all day?" are answered by
statements that need not share a word with the question ("finally ran my first ten
kilometres", "I just started at the hospital"), while the member's chatter that does share one
("the weather is awful again") says nothing. So besides the matches, a reply gets the named
member's most informative statements over their history (`db/recall_statements.py`: rare
words, named things, first person; greetings and reactions score nothing), the question's
own words still counting, so the statements about what was asked come first. These are the
member's own words with their dates, which is what "what do you know about X?" needs too.

Asked where the member has been ("which countries has Priya been to?"), the answer is a list
the question's words do not find either: the lines where they name a place ("took this pic in
Peru", `memory.language.names_a_place`) come first, with twice the slots.
"""

from __future__ import annotations

import logging

import asyncpg

from db.recall import Exclusions, MessageMatch, Scope, Weighted, search_session
from db.recall_statements import member_statements
from memory.core.viewer import Viewer
from memory.language import asks_for_places, asks_what_is_new, is_news, names_a_place
from memory.recall._lanes import Query
from memory.recall._terms import Plan

_log = logging.getLogger(__name__)


# Rows fetched per wanted statement: some are dropped after (forgotten statements, repeats).
OVERFETCH = 3
# A line of fewer words is small talk or an answer, not a statement.
STATEMENT_WORDS = 8


async def statements_for(
    pool: asyncpg.Pool,
    query: Query,
    head: str,
    found: Plan | None,
    messages: list[MessageMatch],
    statements: int,
) -> tuple[list[MessageMatch], int]:
    """The member lane of a search for `head` (searched with `found`'s terms): up to
    `statements` of the first named member's most informative statements, less those the
    matches already hold (`messages`), and how many slots it was given. A question asking
    where the member has been gets twice the slots, all its own: a list of places the
    question's words do not find."""
    named, wanted = query.named, 0
    news_first, places = asks_what_is_new(head), asks_for_places(head)
    if named and query.user_id in (None, named[0]):
        # (Two more slots for "what is new with X?" questions helped one template of the
        # template bench and nothing on LoCoMo-dev: gone, issue 43.)
        wanted = max(0, statements - statements_of(named[0], messages[: query.limit]))
        if places:
            wanted = 2 * statements
    own = await member_lane(
        pool,
        query.guild_id,
        named[0] if named else 0,
        found.terms if found else (),
        reader=query.reader,
        exclude=query.exclude,
        wanted=wanted,
        news_first=news_first,
        places=places,
    )
    return own, wanted


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
    places: bool = False,
) -> list[MessageMatch]:
    """`member_id`'s best statements the reader may read, best first (`wanted` of them and
    some spare); nothing when none are wanted, or when it runs out of time (the matches of
    the search still come). `news_first`: the question asks what is new with the member, so
    what happened to them ("finally ran my first ten kilometres") goes before what lasts ("my
    ferret is called Bun"), each kind best first. `places`: it asks where the member has been,
    so the lines naming a place come first ("took this pic in Peru")."""
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
                places=places,
            )
    except (asyncpg.QueryCanceledError, TimeoutError):
        _log.warning("recall member lane in guild %s hit its time limit", guild_id)
        return []
    if news_first:  # within the places first when they were asked for
        found = sorted(
            found,
            key=lambda m: (places and not names_a_place(m.content), not is_news(m.content)),
        )
    return found


def statements_of(member_id: int, messages: list[MessageMatch]) -> int:
    """How many of `messages` are the member's own statements (not short lines): a question
    whose words found them needs fewer of the member's others."""
    return sum(
        m.author_id == member_id and len(m.content.split()) >= STATEMENT_WORDS for m in messages
    )
