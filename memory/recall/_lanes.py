"""The lanes of one recall search: the message and day-summary lanes for a question's words,
widened by what the best hits add (`_feedback.py`) or by a fallback plan when too few match,
and the second hop that brings the rest of a named member's story.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

import asyncpg

from db.recall import (
    CANDIDATE_CAP,
    Exclusions,
    MessageMatch,
    Scope,
    SummaryMatch,
    search_messages,
    search_session,
    search_summaries,
    term_stats,
)
from memory.core.viewer import Viewer
from memory.language import asked_period, without_dates
from memory.recall._feedback import expansion, feedback_words
from memory.recall._hits import merged
from memory.recall._terms import MIN_PREFIX, Plan, fallback, plan, query_terms

# How long after something happened it is still told as news ("last week").
TOLD_AFTER = timedelta(days=7)
# The slack on each side of a time named in a question, for time zones.
ZONE_SLACK = timedelta(days=1)
# Rows fetched per wanted hit: some are dropped after (forgotten statements, semantic filters,
# one line said again and again, a member named in the question preferring their exchanges).
OVERFETCH = 3
# Hits wanted at least when fetching (a search for one hit still picks among a few).
MIN_FETCH = 5
# A named member's best match brings at most this many of their messages sharing its words.
HOP_HITS = 1
# A minimum prefix length no word reaches: term counts of whole words only.
NO_PREFIX = 1 << 16


@dataclass(frozen=True, slots=True)
class Query:
    """One search's question as the lanes read it: its words, who reads and who is asked
    about, what to leave out, how many hits."""

    guild_id: int
    words: list[str]
    name_words: frozenset[str]  # the named members' names, not topics
    reader: Viewer
    user_id: int | None  # only this member's messages (None: anyone's)
    named: tuple[int, ...]  # the members the question names
    exclude: Exclusions
    limit: int
    # The time the question asks about, [from, to) (`memory.language.asked_period`, widened).
    period: tuple[datetime, datetime] | None = None
    # That time itself (ZONE_SLACK on each side, not TOLD_AFTER): what was said then.
    said: tuple[datetime, datetime] | None = None


Span = tuple[datetime, datetime]


def asked_time(question: str, today: date) -> tuple[Span | None, Span | None]:
    """The time `question` names as [from, to), twice (None, None when it names none): widened
    by ZONE_SLACK before (time zones) and TOLD_AFTER after (what happened is told later: "last
    night", "last week"), what the lanes boost; and the time itself with ZONE_SLACK on each
    side, what was said then."""
    found = asked_period(question, today)
    if found is None:
        return None, None
    start, end = (datetime.combine(day, datetime.min.time(), UTC) for day in found)
    return (start - ZONE_SLACK, end + TOLD_AFTER), (start - ZONE_SLACK, end + ZONE_SLACK)


class LaneSearch:
    """Runs a query's lanes in one search session (one connection, one statement timeout)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def lanes(
        self, query: Query, *, feedback: bool = False
    ) -> tuple[list[MessageMatch], list[SummaryMatch], Plan | None]:
        """The message and summary lanes for the query's words, and the plan they were
        searched with; with `feedback`, the message lane searched again with the words its
        best hits add (`_feedback.py`)."""
        guild_id, words, name_words = query.guild_id, query.words, set(query.name_words)
        exclude, limit = query.exclude, query.limit
        async with search_session(self._pool) as db:
            stats, total = await term_stats(db, guild_id, words, min_prefix=MIN_PREFIX)
            found = plan(stats, total, names=name_words)
            if found is None and name_words:  # only a name was asked about: search the name
                found = plan(stats, total)
            if found is None:
                return [], [], None
            scope = self._scope(query, found)
            fetch = max(limit, MIN_FETCH) * OVERFETCH
            messages = await search_messages(
                db, scope, found.candidates, found.terms, exclude=exclude, limit=fetch
            )
            summaries = await search_summaries(
                db, scope, found.candidates, found.terms, limit=fetch
            )
            shares = feedback_words(messages, set(words) | name_words) if feedback else {}
            if shares:
                near, _ = await term_stats(db, guild_id, list(shares), min_prefix=NO_PREFIX)
                related = expansion(near, shares, total)
                wider_plan = plan(stats, total, names=name_words, related=related)
                if related and wider_plan is not None:
                    found = wider_plan
                    scope = self._scope(query, found)
                    again = await search_messages(
                        db, scope, found.candidates, found.terms, exclude=exclude, limit=fetch
                    )
                    messages = again or messages
            if query.named and found.rows > CANDIDATE_CAP:  # the cap cut rows: score theirs all
                own = await search_messages(
                    db,
                    scope,
                    found.candidates,
                    found.terms,
                    exclude=exclude,
                    limit=fetch,
                    authored=True,
                )
                messages = merged(messages, own, key=lambda m: m.message_id)
            wider = fallback(found)
            if wider and len(messages) < limit:
                more = await search_messages(
                    db, scope, wider, found.terms, exclude=exclude, limit=fetch
                )
                messages = merged(messages, more, key=lambda m: m.message_id)
            if wider and len(summaries) < limit:
                more_days = await search_summaries(db, scope, wider, found.terms, limit=fetch)
                summaries = merged(summaries, more_days, key=lambda s: (s.day, s.user_id))
        return messages, summaries, found

    async def follow_thread(self, query: Query, messages: list[MessageMatch]) -> list[MessageMatch]:
        """A second hop for a named member's best match: their other messages sharing its rare
        words ("actually the blue bike, not the red one" brings "I'm buying the red
        bike on Friday"), placed right after it (also when the first hop ranked it lower),
        so a story told over sessions arrives whole."""
        top = messages[0]
        if top.author_id not in query.named:
            return messages
        asked = set(query.words) | query.name_words
        new_words = [w for w in query_terms(without_dates(top.content)) if w not in asked]
        if not new_words:
            return messages
        author = top.author_id
        hop_query = replace(
            query, words=new_words, user_id=author, named=(author,), limit=HOP_HITS + 1
        )
        hop, _, _ = await self.lanes(hop_query)
        # A message the first hop already ranked lower moves up too: the story's parts first.
        found = [m for m in hop if m.message_id != top.message_id and m.author_id == author]
        moved = {m.message_id for m in found[:HOP_HITS]}
        return [top, *found[:HOP_HITS], *(m for m in messages[1:] if m.message_id not in moved)]

    @staticmethod
    def _scope(query: Query, found: Plan) -> Scope:
        # A named member's row ranks as if it held the question's rarest word once more (of
        # the words some message holds: `Plan.top_weight`).
        boost = max(found.top_weight, 1.0) if query.named else 0.0
        return Scope(
            query.guild_id,
            query.reader.channel_ids,
            query.user_id,
            query.named,
            boost,
            found.names,
            query.period,
            # Said when the question asks about: as if it held the rarest word once more.
            max(found.top_weight, 1.0) if query.period else 0.0,
        )
