"""Keeps `message_embeddings` up to date for semantic recall: a queued job per guild embeds its
messages that have no current vector, newest first, a few batches per run (the next sweep
queues the rest), within the embedding provider's shared rate limit.
"""

from __future__ import annotations

import logging

import asyncpg

from db.embeddings import (
    ToEmbed,
    embeddings_ready,
    messages_to_embed,
    noted_to_embed,
    store_embeddings,
)
from memory.core.models import ChatMessage
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import Embedder, SharedRateLimiter, build_embedder
from memory.recall._feed import EmbeddingFeed

_log = logging.getLogger(__name__)

# Messages per request, and requests per job: a job stays short, the sweep brings it back.
BATCH = 100
BATCHES_PER_JOB = 20


class EmbeddingIndex:
    """Embeds a guild's messages (the `embed` job; with the local embedder, also as the writer
    stores them) when an embedder is configured and pgvector is there; `ready()` says whether
    both hold."""

    def __init__(self, pool: asyncpg.Pool, embedder: Embedder | None) -> None:
        self._pool = pool
        self.embedder = embedder
        self._table: bool | None = None
        self._feed = EmbeddingFeed(self.index_messages, self.look_through)

    @property
    def local(self) -> bool:
        """The embedder runs in this process and spends no quota nor token budget."""
        return self.embedder is not None and self.embedder.local

    def note(self, messages: list[ChatMessage]) -> None:
        """The writer stored these messages: with the local embedder, embed them soon."""
        if self.embedder is not None and self.embedder.local:
            self.embedder.model.warm()  # loaded before the first question needs it
            self._feed.note(messages)

    async def settled(self) -> None:
        """Wait until every message noted so far is embedded (tests, the console)."""
        await self._feed.settled()

    async def embed_guild(self, guild_id: int) -> int:
        """Embed every message of the guild that has no current vector (after an import);
        how many were. A provider's failure (LLMError) ends it: those stored stay. One pass,
        newest to oldest: starting each job's worth of batches from the newest again read the
        part already embedded once more each time (an import's embedding slowed as it went)."""
        embedded, before = 0, None
        while True:
            count, before = await self._index(guild_id, before)
            embedded += count
            if before is None:
                return embedded

    async def ready(self) -> bool:
        if self.embedder is None:
            return False
        if self._table is None:
            self._table = await embeddings_ready(self._pool)
            if not self._table:
                _log.warning(
                    "embeddings are on (%s) but the database has no pgvector (table"
                    " message_embeddings missing): recall uses full-text search only",
                    self.embedder.model_name,
                )
        return self._table

    async def index_messages(self, guild_id: int, message_ids: list[int]) -> int:
        """Embed those of these messages of the guild that have no current vector (read by
        their ids: the rest of the guild is not looked at); how many were."""
        if self.embedder is None or not await self.ready():
            return 0
        embedded = 0
        for start in range(0, len(message_ids), BATCH):
            chosen = message_ids[start : start + BATCH]
            embedded += await self._store(await noted_to_embed(self._pool, guild_id, chosen))
        return embedded

    async def look_through(self, guild_id: int, before: int | None = None) -> int | None:
        """Embed up to BATCHES_PER_JOB batches of the guild's unembedded messages older than
        message `before` (None: from the newest), newest first; the message to go on from
        when it stopped at that cap with more to do, None when it reached the oldest."""
        _, after = await self._index(guild_id, before)
        return after

    async def _index(self, guild_id: int, before: int | None) -> tuple[int, int | None]:
        """(messages embedded, where to go on from or None when done) of one job's worth of
        batches, from `before` on."""
        if self.embedder is None or not await self.ready():
            return 0, None
        embedded = 0
        for _ in range(BATCHES_PER_JOB):
            batch = await messages_to_embed(self._pool, guild_id, BATCH, before=before)
            if not batch:
                return embedded, None
            before = batch[-1].message_id  # newest first: the next batch is older
            embedded += await self._store(batch)
            if len(batch) < BATCH:
                return embedded, None
        return embedded, before

    async def _store(self, batch: list[ToEmbed]) -> int:
        """Embed `batch` and store the vectors; how many were stored."""
        if not batch or self.embedder is None:
            return 0
        vectors = await self.embedder.embed([item.content for item in batch])
        pairs = list(zip(batch, vectors, strict=True))
        return await store_embeddings(self._pool, self.embedder.model_name, pairs)

    async def aclose(self) -> None:
        await self._feed.aclose()
        if self.embedder is not None:
            await self.embedder.aclose()


def open_embedding_index(
    pool: asyncpg.Pool, settings: Settings, telemetry: Telemetry
) -> EmbeddingIndex:
    """The index for EMBEDDING_PROVIDER (unset: the local embedder, or none with
    LOCAL_EMBEDDINGS=false), a provider's requests within one EMBEDDING_REQUESTS_PER_MINUTE
    limit shared by every process on the database."""
    rpm = settings.embedding_requests_per_minute
    key = f"{settings.embedding_provider}:embeddings"
    embedder = build_embedder(settings, telemetry, limiter=SharedRateLimiter(pool, key, rpm))
    return EmbeddingIndex(pool, embedder)
