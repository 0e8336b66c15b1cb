"""Recall search: find anything said in a guild again from a natural question.

"When did Sam fix the boat?" becomes the terms `fix` and `boat` (Sam, a member named in
it, is a boost for what she wrote or was mentioned in, not a word to match), weighted by how
rare each word is in the guild (`memory/recall/_terms.py`), and searched in PostgreSQL
(`db/recall.py`) in two lanes: messages, and day summaries, which never push a message out.
With embeddings configured, the nearest messages in meaning are fused into the message lane.

Never returned, whoever asks: another guild's rows, channels the viewer may not read, the
message being answered, messages addressed to the bot and the bot's own, and anything that
restates a statement forgotten in the guild (about any member).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import asyncpg

from db.recall import Exclusions, MessageMatch, SummaryMatch, search_session
from db.recall_exchange import around
from db.recall_hits import channel_names, guild_forgotten
from memory.core.clock import Clock, SystemClock
from memory.core.viewer import Viewer
from memory.language import asks_for_places
from memory.members import MemberDirectory, NameIndexCache, mentioned_ids
from memory.recall._asking import Asking, addressing
from memory.recall._exchange import Exchange, exchanges
from memory.recall._hits import (
    Forgetting,
    RecallHit,
    distinct,
    fused,
    message_hit,
    name_of,
    named_first,
    summary_hit,
    zone_of,
)
from memory.recall._index import EmbeddingIndex
from memory.recall._lanes import OVERFETCH, LaneSearch, Query, asked_time
from memory.recall._member import statements_for
from memory.recall._semantic import (
    SEMANTIC_TIMEOUT_SECONDS,
    Meaning,
    drop,
    in_time,
    nearest,
    unnamed,
)
from memory.recall._soft_terms import SoftTerms
from memory.recall._terms import (
    MAX_QUESTION_CHARS,
    MAX_WORDS,
    query_terms,
    was_capped,
)

_log = logging.getLogger(__name__)

# How long a search waits for the nearest in meaning: until `semantic_wait` after it began, and
# at least a little once its full-text lanes are done; then it goes on without them. A reply's
# search waits REPLY_SEMANTIC_WAIT_SECONDS (within its memory budget); a command's search the
# embedder's own time limit.
SEMANTIC_GRACE_SECONDS = 0.1
# Matches whose exchanges are read per hit wanted: some merge into a better one's exchange.
EXCHANGE_CANDIDATES = 2


@dataclass(frozen=True, slots=True)
class _Lanes:
    """What one search found, lane by lane, before it becomes hits."""

    messages: list[MessageMatch]
    similar: Meaning
    summaries: list[SummaryMatch]
    own: list[MessageMatch]  # the named member's statements
    topic: str  # the question without the names it says
    named: tuple[int, ...] = ()  # the members the question names
    in_context: int | None = None  # hits read with their exchanges (None: every hit)
    own_first_after: int | None = None  # past this many, the named members' matches first
    head: str = ""  # the question as searched (what the member lane read too)


class RecallService:
    """Searches one guild at a time; never another guild's rows. Members named in a question
    are found with the guild's name index (`names`, shared with the reply path when given)."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        names: NameIndexCache | None = None,
        embeddings: EmbeddingIndex | None = None,
        *,
        bot_name: str = "",
        members: MemberDirectory | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._pool = pool
        self._clock = clock or SystemClock()
        self._embeddings = embeddings
        embedder = embeddings.embedder if embeddings else None
        self._soft: SoftTerms | None = None
        if embedder is not None:
            self._soft = SoftTerms(embedder.token_table)
            embedder.when_token_table(self._soft.prepare)
        self._members = members or MemberDirectory(pool)
        self._names = names or NameIndexCache(self._members.all)
        self._bot_name = bot_name
        self._bot_pattern = addressing(bot_name)
        self._no_channel_table = False
        self._lanes = LaneSearch(pool)

    @staticmethod
    def capped(question: str) -> str | None:
        """One line saying how much of a long question a search reads; None when it reads all
        of it."""
        if not was_capped(question):
            return None
        return (
            f"(a long question: searched its first {MAX_WORDS} words to look for, within"
            f" its first {MAX_QUESTION_CHARS} characters)"
        )

    async def search(
        self,
        guild_id: int,
        question: str,
        *,
        user_id: int | None = None,
        limit: int = 5,
        viewer: Viewer | None = None,
        asking: Asking | None = None,
        summaries: int | None = None,
        statements: int = 0,
        semantic_wait: float = SEMANTIC_TIMEOUT_SECONDS + 0.5,
        in_context: int | None = None,
        own_first_after: int | None = None,
    ) -> list[RecallHit]:
        """Best hits first: messages, then up to `statements` more of the first named
        member's most informative statements (the member lane, `_member.py`), then day
        summaries (`summaries` slots, by default a quarter of `limit`, at least one; a lane
        with fewer hits leaves its slots to the other). Only messages of channels `viewer` may
        read (None: the admin's view, every channel). A question is read up to its first
        MAX_QUESTION_CHARS / MAX_WORDS. With `in_context`, only that many of the best matches
        come with their exchanges, the later ones alone (what a reply shows of them); with
        `own_first_after`, past that many matches the named members' own come first."""
        began = time.monotonic()
        words = query_terms(question)
        if not words or limit < 1:
            return []
        asking = asking or Asking()
        exclude = Exclusions(
            (asking.message_id,) if asking.message_id else (), asking.bot_id, self._bot_pattern
        )
        reader = viewer or Viewer.everything()
        head = question[:MAX_QUESTION_CHARS]
        named, name_words = await self._named_in(guild_id, head, asking)
        summary_slots = summaries if summaries is not None else max(1, limit // 4)
        period, said = asked_time(head, self._clock.now().date())
        query = Query(
            guild_id, words, name_words, reader, user_id, named, exclude, limit, period, said
        )
        topic = unnamed(question, query.name_words)  # what is asked about, names left out
        meaning = self._look_up_meaning(query, topic)
        try:
            messages, day_summaries, found = await self._lanes.lanes(query, feedback=True)
            if named and messages:
                messages = await self._lanes.follow_thread(query, messages)
        except (asyncpg.QueryCanceledError, TimeoutError):
            _log.warning("recall search in guild %s hit its time limit", guild_id)
            drop(meaning)
            return []
        except BaseException:
            drop(meaning)
            raise
        own, wanted = await statements_for(self._pool, query, head, found, messages, statements)
        waited = time.monotonic() - began
        similar = await in_time(meaning, max(SEMANTIC_GRACE_SECONDS, semantic_wait - waited))
        lanes = _Lanes(
            messages, similar, day_summaries, own, topic, named, in_context, own_first_after, head
        )
        return await self._hits(guild_id, lanes, exclude, limit, summary_slots, wanted)

    def _look_up_meaning(self, query: Query, topic: str) -> asyncio.Future[Meaning]:
        """The nearest in meaning to `topic` (and, when the question names a time, the nearest
        said then), looked up while the full-text lanes run (own connections)."""
        return asyncio.ensure_future(
            nearest(
                self._pool,
                self._embeddings,
                query.guild_id,
                topic,
                user_id=query.user_id,
                reader=query.reader,
                exclude=query.exclude,
                limit=query.limit * OVERFETCH,
                bot_name=self._bot_name,
                period=query.said,
            )
        )

    async def _named_in(
        self, guild_id: int, head: str, asking: Asking
    ) -> tuple[tuple[int, ...], frozenset[str]]:
        """The members a question names (mentions first, then names, never the bot) and the
        words of their names (not topics to search)."""
        index = await self._names.get(guild_id)
        named = [*dict.fromkeys([*mentioned_ids(head), *index.named_in(head)])]
        if asking.bot_id in named:
            named.remove(asking.bot_id)
        people = await self._members.get(guild_id, named) if named else {}
        words = {w.lower() for m in people.values() for n in m.names for w in n.split()}
        return tuple(named), frozenset(words)

    async def _hits(
        self,
        guild_id: int,
        lanes: _Lanes,
        exclude: Exclusions,
        limit: int,
        summary_slots: int,
        statement_slots: int,
    ) -> list[RecallHit]:
        """Matches as hits (messages, the member's statements, day summaries), without
        forgotten statements, the matched messages with their context."""
        forgotten, zone_name = await guild_forgotten(self._pool, guild_id)
        zone = zone_of(zone_name)
        messages, summaries = lanes.messages, lanes.summaries
        ordered = fused(messages, lanes.similar.anytime, lanes.similar.said_then)
        if self._soft is not None:
            ordered = await self._soft.reranked(lanes.topic, ordered)
        ids = {m.author_id for m in [*ordered, *lanes.own]} | {s.user_id for s in summaries}
        members = await self._members.get(guild_id, sorted(ids | set(forgotten)))
        keep = Forgetting(forgotten, members)
        kept = distinct(m for m in ordered if not keep.drops(m.content))
        kept = named_first(kept, lanes.named, lanes.own_first_after)
        summary_hits = []
        for s in summaries:
            text = keep.cleaned(s.summary)
            if text:
                summary_hits.append(summary_hit(s, text, name_of(members, s.user_id)))
        message_room = max(limit - min(summary_slots, len(summary_hits)), 0)
        own = [m for m in lanes.own if not keep.drops(m.content)]
        groups, own_groups = await self._exchanges(
            guild_id,
            kept,
            own,
            exclude,
            keep,
            (message_room, statement_slots, lanes.in_context),
            lanes.named,
        )
        summary_hits = summary_hits[: limit - len(groups)]
        lines = [m for g in [*groups, *own_groups] for m, _ in g.lines.values()]
        channels = await self._channel_names(
            guild_id, sorted({g.hit.channel_id for g in [*groups, *own_groups]})
        )
        extra = {m.author_id for m in lines} - set(members)
        if extra:
            members |= await self._members.get(guild_id, sorted(extra))
        if lanes.own_first_after is not None and asks_for_places(lanes.head):
            # What is asked for is not in the question's words: the member's lines naming
            # places come right after the best hits, before later matches of those words.
            at = lanes.own_first_after
            groups, own_groups = [*groups[:at], *own_groups], groups[at:]
        hits = [
            message_hit(g.hit, members, zone, channels, tuple(g.lines.values()))
            for g in [*groups, *own_groups]
        ]
        return hits + summary_hits

    async def _exchanges(
        self,
        guild_id: int,
        kept: list[MessageMatch],
        own: list[MessageMatch],
        exclude: Exclusions,
        keep: Forgetting,
        rooms: tuple[int, int, int | None],
        named: tuple[int, ...],
    ) -> tuple[list[Exchange], list[Exchange]]:
        """The best matches with their exchanges (`_exchange.py`; `rooms[0]` of them), matches
        sharing a line merged, those the `named` members took part in first; then the member
        lane's statements (`rooms[1]`) with theirs, without a line already shown; past
        `rooms[2]` exchanges (when given) the later matches alone. No line restates a
        forgotten statement. One round trip for both."""
        room, statement_room, in_context = rooms
        read = room if in_context is None else min(room, in_context)
        candidates = kept[: read * (OVERFETCH if named else EXCHANGE_CANDIDATES)] if read else []
        statements = own[: statement_room * EXCHANGE_CANDIDATES] if statement_room else []
        wanted = {m.message_id: m for m in [*candidates, *statements]}.values()
        hits = [(m.message_id, m.channel_id, m.created_at, m.reply_to_id) for m in wanted]
        try:
            async with search_session(self._pool, custom_plans=True) as db:
                rows = await around(db, guild_id, hits, exclude)
        except (asyncpg.QueryCanceledError, TimeoutError):  # the matches still come, alone
            _log.warning("recall exchanges in guild %s hit their time limit", guild_id)
            rows = []
        rows = [row for row in rows if not keep.drops(row.content)]
        groups = exchanges(candidates, rows, limit=read, named=named) if read else []
        shown = set().union(*(group.ids for group in groups))
        later = [m for m in kept if m.message_id not in shown] if in_context is not None else []
        alone = [Exchange(m) for m in later[: room - len(groups)]]
        groups += alone
        shown |= {group.hit.message_id for group in alone}
        fresh = [m for m in statements if m.message_id not in shown]
        told = exchanges(fresh, rows, limit=statement_room) if statement_room else []
        for group in told:
            group.lines = {key: line for key, line in group.lines.items() if key not in shown}
        return groups, told

    async def _channel_names(self, guild_id: int, channel_ids: list[int]) -> dict[int, str]:
        """Channel names when the database records them (a missing table stays missing for
        the life of the process: migrations run before it starts)."""
        if self._no_channel_table or not channel_ids:
            return {}
        names = await channel_names(self._pool, guild_id, channel_ids)
        self._no_channel_table = names is None
        return names or {}
