"""The semantic part of a search: the messages nearest in meaning to a question, when an
embedder is on (a provider's, or the local one of the default install), with the filters full
text applies in SQL, and none less similar than the model's floor (noise, not meaning)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import asyncpg

from db.embeddings import nearest_messages
from db.recall import Exclusions, MessageMatch
from memory.core.viewer import Viewer
from memory.language import addressed_text
from memory.recall._index import EmbeddingIndex
from memory.recall._terms import MAX_QUESTION_CHARS

_log = logging.getLogger(__name__)

# How long a search waits for the question's embedding before going on with full text alone.
SEMANTIC_TIMEOUT_SECONDS = 3.0


def unnamed(question: str, name_words: Iterable[str]) -> str:
    """The question without the names of the members it names (and their possessive 's):
    what it asks about, for the lookup by meaning. A name weighs as much as a topic in an
    embedding, and in a guild where members call each other by name, "where has Mel camped?"
    is then nearest to every line saying "Mel" (on LoCoMo-dev, dropping the names brought
    multi-hop evidence from 0.18 to 0.22). Who is asked about is the full-text lanes' boost."""
    names = sorted({word for word in name_words if word}, key=len, reverse=True)
    if not names:
        return question
    pattern = r"\b(?:" + "|".join(map(re.escape, names)) + r")(?:['’]s)?\b"
    return " ".join(re.sub(pattern, " ", question, flags=re.IGNORECASE).split()) or question


@dataclass(frozen=True, slots=True)
class Meaning:
    """What a question is nearest to: among the guild's messages, and among those said in the
    time it names (empty when it names none)."""

    anytime: list[MessageMatch] = field(default_factory=list)
    said_then: list[MessageMatch] = field(default_factory=list)


async def nearest(
    pool: asyncpg.Pool,
    index: EmbeddingIndex | None,
    guild_id: int,
    question: str,
    *,
    user_id: int | None,
    reader: Viewer,
    exclude: Exclusions,
    limit: int,
    bot_name: str,
    period: tuple[datetime, datetime] | None = None,
) -> Meaning:
    """The messages nearest in meaning to the question (at most `limit`), and with `period`
    those said within it: the question is embedded once, both read at once. Nothing when
    embeddings are off, or the embedder fails or is slow."""
    if index is None or index.embedder is None or not await index.ready():
        return Meaning()
    if not index.embedder.model.warm():  # loading: this search is by words alone
        return Meaning()
    try:
        async with asyncio.timeout(SEMANTIC_TIMEOUT_SECONDS):
            [vector] = await index.embedder.embed([question[:MAX_QUESTION_CHARS]], query=True)
    except Exception as exc:  # a search is never held hostage by the embedding provider
        _log.info("semantic recall unavailable (%s); full-text only", exc)
        return Meaning()
    model, wanted = index.embedder.model_name, limit * 4 // 3
    found = await asyncio.gather(
        *(
            nearest_messages(
                pool, guild_id, vector, model=model, limit=wanted, user_id=user_id, period=within
            )
            for within in (None, *([period] if period else []))
        )
    )
    floor = index.embedder.model.min_similarity
    kept = [
        [
            m
            for m in rows
            if m.rank >= floor
            and reader.may_read(m.channel_id)
            and m.message_id not in exclude.message_ids
            and m.author_id != exclude.bot_id
            and addressed_text(m.content, bot_name=bot_name, bot_user_id=exclude.bot_id) is None
        ][:limit]
        for rows in found
    ]
    return Meaning(kept[0], kept[1] if period else [])


async def in_time(task: asyncio.Future[Meaning], grace: float) -> Meaning:
    """The lookup's result if it ends within `grace` more seconds; else nothing (dropped): a
    slow vector index never holds a search, nor a reply, hostage."""
    done, _ = await asyncio.wait({task}, timeout=grace)
    if not done:
        _log.info("semantic recall still running %.2fs after the full-text lanes", grace)
        drop(task)
        return Meaning()
    return task.result()


def drop(task: asyncio.Future[Meaning]) -> None:
    """A lookup no longer wanted: cancelled, and its failure (if it ended so) not reported."""
    task.cancel()
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
