"""Recall search: find anything said in a guild again from a natural question.

"When did sam go to that climbing gym?" becomes `sam:* | climbing:* | gym:*` (question words
and other stop words dropped, every remaining word a prefix), searched with PostgreSQL full
text over the guild's retained messages and stored day summaries, ranked so the message that
shares most of the question's words comes first. A member's recall never returns what they
asked the bot to forget.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from db.embeddings import nearest_messages
from db.facts import get_forgotten
from db.members import get_members
from db.recall import MessageMatch, search_messages, search_summaries
from memory.core.text import restates_any, wordset
from memory.core.viewer import Viewer
from memory.members import MemberDirectory, NameIndexCache
from memory.recall._hybrid import fuse
from memory.recall._index import EmbeddingIndex

_log = logging.getLogger(__name__)

# How long a search waits for the question's embedding before going on with full text alone.
SEMANTIC_TIMEOUT_SECONDS = 3.0

# Words that carry the question, not its subject (English and Russian; other languages pass
# through). Every search term is a prefix, so a short function word left in ("про", "on")
# would match half the guild's words.
_RUSSIAN = wordset(
    """
    и а но или да нет не ни же ли бы вот ну в во на с со к ко по о об обо от до из за у для
    про при под над без через после перед между это этот эта эти то тот та те что чего как
    какой какая какие кто кого где куда когда зачем почему сколько я меня мне мой моя мы нас
    наш ты тебя твой вы вас ваш он его ему она её ее они их им был была было были быть есть
    будет уже ещё еще тоже также только очень так там тут здесь сказал сказала сказали говорил
    говорила говорили знаешь помнишь бот пожалуйста расскажи скажи
    """
)
STOP_WORDS = _RUSSIAN | frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "about",
        "into",
        "over",
        "after",
        "before",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "there",
        "here",
        "any",
        "some",
        "all",
        "no",
        "not",
        "yes",
        "so",
        "very",
        "just",
        "also",
        "too",
        "then",
        "than",
        "as",
        "up",
        "down",
        "out",
        "off",
        "again",
        "ever",
        "say",
        "said",
        "says",
        "tell",
        "told",
        "know",
        "knew",
        "remember",
        "recall",
        "bot",
        "please",
        "go",
        "went",
        "gone",
        "going",
        "get",
        "got",
        "one",
        "ones",
        "thing",
        "things",
        "time",
    }
)
# Apostrophes split words, as the text search parser splits them in the stored vectors: "kim's"
# searches "kim" (a lone "s" would be a prefix of half the guild's words).
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(question: str) -> list[str]:
    """The words of a question worth searching for, in order, without repeats."""
    terms: dict[str, None] = {}
    for word in _WORD.findall(question.lower()):
        if len(word) > 1 and word not in STOP_WORDS and not word.isdigit():
            terms.setdefault(word, None)
    return list(terms)


def term_queries(terms: list[str]) -> list[str]:
    """Each term as a quoted prefix operand, so no user text is tsquery syntax."""
    return ["'" + term.replace("'", "''").replace("\\\\", "") + "':*" for term in terms]


def to_tsquery(terms: list[str]) -> str:
    """An OR of prefix terms (what the database searches for)."""
    return " | ".join(term_queries(terms))


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One thing found: a message (with what a jump link needs) or a day summary."""

    kind: str  # "message" or "summary"
    at: datetime | None
    day: str
    author_id: int
    author_name: str
    text: str
    rank: float
    channel_id: int | None = None
    message_id: int | None = None

    def jump_url(self, guild_id: int) -> str | None:
        if self.message_id is None or self.channel_id is None:
            return None
        return f"https://discord.com/channels/{guild_id}/{self.channel_id}/{self.message_id}"


class RecallService:
    """Searches one guild at a time; never another guild's rows. Members named in a question
    ("what did bob say about Berlin?") are found with the guild's name index (`names`, shared
    with the reply path when given), so their own messages rank as if they said their name."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        names: NameIndexCache | None = None,
        embeddings: EmbeddingIndex | None = None,
    ) -> None:
        self._pool = pool
        self._embeddings = embeddings
        self._names = names or NameIndexCache(MemberDirectory(pool).all)

    async def search(
        self,
        guild_id: int,
        question: str,
        *,
        user_id: int | None = None,
        limit: int = 5,
        viewer: Viewer | None = None,
    ) -> list[RecallHit]:
        """Best hits first; only messages of channels `viewer` may read (None: the admin's
        view, every channel)."""
        hits = await self._search(guild_id, question, user_id=user_id, limit=limit * 4)
        reader = viewer or Viewer.everything()
        return [hit for hit in hits if reader.may_read(hit.channel_id)][:limit]

    async def _search(
        self, guild_id: int, question: str, *, user_id: int | None, limit: int
    ) -> list[RecallHit]:
        terms = query_terms(question)
        if not terms:
            return []
        operands = term_queries(terms)
        named = (await self._names.get(guild_id)).named_in(question)
        messages = await search_messages(
            self._pool, guild_id, operands, user_id=user_id, limit=limit * 2, named=named
        )
        summaries = await search_summaries(
            self._pool, guild_id, operands, user_id=user_id, limit=limit, named=named
        )
        similar = await self._semantic(guild_id, question, user_id, limit * 2)
        found = {m.message_id for m in messages}
        ids = {m.author_id for m in [*messages, *similar]} | {s.user_id for s in summaries}
        members = await get_members(self._pool, guild_id, sorted(ids))

        def name(user_id: int) -> str:
            member = members.get(user_id)
            return member.display_name if member else f"user {user_id}"

        hits = [
            _message_hit(m, name(m.author_id))
            for m in [*messages, *(m for m in similar if m.message_id not in found)]
        ] + [
            RecallHit(
                "summary", None, s.day.isoformat(), s.user_id, name(s.user_id), s.summary, s.rank
            )
            for s in summaries
        ]
        if user_id is not None:
            hits = await self._without_forgotten(guild_id, user_id, hits, members)
        if similar:  # words and meaning: fuse the two orders (their scores do not compare)
            return _fused(hits, messages, similar)[:limit]
        hits.sort(key=lambda hit: (-hit.rank, hit.kind != "message"))
        return hits[:limit]

    async def _semantic(
        self, guild_id: int, question: str, user_id: int | None, limit: int
    ) -> list[MessageMatch]:
        """The messages nearest in meaning to the question, when embeddings are on; nothing
        (full-text alone) when the embedding provider fails or is slow."""
        index = self._embeddings
        if index is None or index.embedder is None or not await index.ready():
            return []
        try:
            async with asyncio.timeout(SEMANTIC_TIMEOUT_SECONDS):
                [vector] = await index.embedder.embed([question], query=True)
        except Exception as exc:  # a search is never held hostage by the embedding provider
            _log.info("semantic recall unavailable (%s); full-text only", exc)
            return []
        model = index.embedder.model_name
        return await nearest_messages(
            self._pool, guild_id, vector, model=model, limit=limit, user_id=user_id
        )

    async def _without_forgotten(
        self, guild_id: int, user_id: int, hits: list[RecallHit], members: dict
    ) -> list[RecallHit]:
        """A member's recall skips what they asked to forget (their context must not bring it
        back through search)."""
        forgotten = await get_forgotten(self._pool, guild_id, user_id)
        if not forgotten:
            return hits
        member = members.get(user_id)
        names = list(member.names) if member else []
        return [hit for hit in hits if not restates_any(hit.text, forgotten, names=names)]


def _message_hit(match: MessageMatch, author_name: str) -> RecallHit:
    return RecallHit(
        "message",
        match.created_at,
        match.created_at.date().isoformat(),
        match.author_id,
        author_name,
        match.content,
        match.rank,
        match.channel_id,
        match.message_id,
    )


def _fused(
    hits: list[RecallHit], messages: list[MessageMatch], similar: list[MessageMatch]
) -> list[RecallHit]:
    """Hits ordered by reciprocal rank over the full-text messages, the nearest messages and
    the day summaries (each list in its own order)."""
    summaries = sorted((h for h in hits if h.kind == "summary"), key=lambda h: -h.rank)
    order = fuse(
        [
            [("message", m.message_id) for m in messages],
            [("message", m.message_id) for m in similar],
            [("summary", h.day, h.author_id) for h in summaries],
        ]
    )
    by_key = {_key(hit): hit for hit in hits}
    return [by_key[key] for key in order if key in by_key]


def _key(hit: RecallHit) -> tuple[object, ...]:
    if hit.kind == "message":
        return ("message", hit.message_id)
    return ("summary", hit.day, hit.author_id)
