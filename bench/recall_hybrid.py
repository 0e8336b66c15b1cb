"""Recall as the default install runs it: full text fused with the local embedder's nearest
messages (pgvector HNSW), on the recall bench's big guild.

The guild's generated chat is made of pseudo-words, so its vectors are random unit vectors of
the local model's width (256 components), made in SQL;
the planted answers get their real vectors from the local model, and each question is embedded
by it as a search does. What is timed is `RecallService.search` with the embedding index on:
the question's embedding, the HNSW walk and the full-text lanes, fused.
"""

from __future__ import annotations

import time

import asyncpg

from bench.recall_data import QUESTIONS
from db.embeddings import ToEmbed, create_hnsw_index, hnsw_index, store_embeddings
from memory.core.telemetry import Telemetry
from memory.llm import Embedder
from memory.llm.embeddings._local import WIDTH, LocalEmbeddings
from memory.recall import EmbeddingIndex

LONG = 7200.0  # seconds: a million vectors and their HNSW graph take longer than a request


def local_index(pool: asyncpg.Pool) -> EmbeddingIndex:
    """The embedding index of the default install (the local model, no rate limit)."""
    return EmbeddingIndex(pool, Embedder(LocalEmbeddings(), limiter=None, telemetry=Telemetry()))


async def fill_vectors(pool: asyncpg.Pool, index: EmbeddingIndex) -> float:
    """A vector for every message (random; the planted answers' real), then the HNSW index
    built over them as a bulk load would; the seconds that build took."""
    embedder = index.embedder
    assert embedder is not None
    async with pool.acquire() as connection:
        rows = await connection.fetch(
            "SELECT message_id, guild_id, content FROM messages WHERE content = ANY($1)",
            [needle.answer for needle in QUESTIONS],
        )
        planted = [ToEmbed(row["message_id"], row["guild_id"], row["content"]) for row in rows]
        await connection.execute("SET maintenance_work_mem = '2GB'")
        await connection.execute(f"DROP INDEX IF EXISTS {hnsw_index(WIDTH)}")
        await connection.execute(
            """
            INSERT INTO message_embeddings (message_id, guild_id, model, content_md5, embedding)
            SELECT m.message_id, m.guild_id, $1, md5(m.content),
                   l2_normalize((SELECT array_agg(random() - 0.5)::vector
                                 FROM generate_series(1, $2) WHERE m.message_id > 0))::halfvec
            FROM messages m
            """,
            embedder.model_name,
            WIDTH,
            timeout=LONG,
        )
        vectors = await embedder.embed([item.content for item in planted])
        pairs = list(zip(planted, vectors, strict=True))
        await store_embeddings(connection, embedder.model_name, pairs)
        began = time.perf_counter()
        await connection.execute(create_hnsw_index(WIDTH), timeout=LONG)
        seconds = time.perf_counter() - began
        await connection.execute("VACUUM ANALYZE message_embeddings", timeout=LONG)
    return seconds
