"""V028 stores each vector at its model's own width (issue 43): the local model's 256
components had been padded with zeros to a `halfvec(768)` column, so its HNSW graph carried
three times the bytes it ranks by. A database of V027's shape keeps every vector, the local
ones cut to their own components (no distance changes), and each width is searched through an
index of its own."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from db.embedded import EmbeddedPostgres
from db.embeddings import (
    STORED_WIDTHS,
    create_hnsw_index,
    hnsw_index,
    nearest_messages,
    vector_text,
)
from db.migrate import migrate
from tests.db.migration_support import migrated_before

GUILD = 7
LOCAL = "local:wordllama-l2-supercat-256"
_MESSAGES = """
INSERT INTO messages (message_id, guild_id, channel_id, author_id, content, created_at)
VALUES (101, 7, 70, 1, 'my puppy chewed my shoes', '2026-01-05 10:00+00'),
       (102, 7, 70, 2, 'the train was late', '2026-01-05 10:01+00'),
       (103, 7, 70, 2, 'ramen tonight', '2026-01-05 10:02+00')
"""


def _unit(width: int, hot: int) -> list[float]:
    """A unit vector of `width` components along axis `hot`, with a little of axis 0."""
    vector = [0.0] * width
    vector[hot], vector[0] = 0.8, 0.6
    return vector


async def _at_v027(pg_server: EmbeddedPostgres, tmp_path: Path) -> asyncpg.Connection:
    """A database migrated as before V028, with local vectors padded to 768 and an API
    model's 768-wide one."""
    connection = await migrated_before(pg_server, tmp_path, "by_width", 28)
    await connection.execute(_MESSAGES)
    padded = [(101, LOCAL, _unit(256, 5) + [0.0] * 512), (102, LOCAL, _unit(256, 9) + [0.0] * 512)]
    for message_id, model, vector in [*padded, (103, "gemini:text-embedding", _unit(768, 700))]:
        await connection.execute(
            "INSERT INTO message_embeddings (message_id, guild_id, model, content_md5, embedding)"
            " SELECT message_id, guild_id, $2, md5(content), $3::halfvec FROM messages"
            " WHERE message_id = $1",
            message_id,
            model,
            vector_text(vector),
        )
    return connection


async def test_local_vectors_are_cut_to_their_width_and_each_width_has_its_index(
    pg_server: EmbeddedPostgres, tmp_path: Path
) -> None:
    connection = await _at_v027(pg_server, tmp_path)
    try:
        assert await migrate(connection) == [28]
        widths = await connection.fetch(
            "SELECT message_id, vector_dims(embedding) AS width FROM message_embeddings"
            " ORDER BY message_id"
        )
        assert [(row["message_id"], row["width"]) for row in widths] == [
            (101, 256),
            (102, 256),
            (103, 768),
        ]
        indexes = await connection.fetch(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'message_embeddings'"
        )
        names = {row["indexname"] for row in indexes}
        assert {hnsw_index(width) for width in STORED_WIDTHS} <= names
        assert "message_embeddings_hnsw_idx" not in names
        assert await migrate(connection) == []  # and V028 again, as every start runs it
    finally:
        await connection.close()
    async with asyncpg.create_pool(pg_server.uri("by_width"), min_size=1, max_size=2) as pool:
        near = await nearest_messages(pool, GUILD, _unit(256, 9), model=LOCAL, limit=5)
        assert [match.message_id for match in near] == [102, 101]
        assert near[0].rank == pytest.approx(1.0, abs=1e-3)  # the cut kept the direction
        model = "gemini:text-embedding"
        far = await nearest_messages(pool, GUILD, _unit(768, 700), model=model, limit=5)
        assert [match.message_id for match in far] == [103]
        with pytest.raises(ValueError, match="384"):
            await nearest_messages(pool, GUILD, [1.0] * 384, model=LOCAL, limit=5)


async def test_the_benches_build_the_index_v028_builds(db_pool: asyncpg.Pool) -> None:
    """The benches drop an index to bulk-load, then build it with `create_hnsw_index`: the
    same index as V028's (its statement is spelled twice, in the frozen migration and here)."""
    if await db_pool.fetchval("SELECT to_regclass('message_embeddings')") is None:
        pytest.skip("pgvector is not available to this server")
    definition = "SELECT indexdef FROM pg_indexes WHERE indexname = $1"
    for width in STORED_WIDTHS:
        migrated = await db_pool.fetchval(definition, hnsw_index(width))
        await db_pool.execute(f"DROP INDEX {hnsw_index(width)}")
        await db_pool.execute(create_hnsw_index(width))
        assert await db_pool.fetchval(definition, hnsw_index(width)) == migrated
