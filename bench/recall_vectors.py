"""Semantic recall's database side: nearest messages of one guild (and one member) by cosine
over `message_embeddings` (768-d vectors, an API model's width, and their HNSW index), timed.

    python -m bench.recall_vectors [--messages 200000] [--guilds 10] [--queries 50]

Messages are spread over `guilds` guilds (so the guild filter matters) and given random unit
vectors in SQL; the HNSW index is built after the fill, as a bulk load would. Each query is a
random unit vector: what is timed is `db.embeddings.nearest_messages`, the query a search runs
after the question is embedded (the embedding request itself is the provider's latency).
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from functools import partial
from typing import Any

import asyncpg

from bench.database import bench_server
from bench.harness import timed
from bench.report import Reporter, percentile
from db.embeddings import create_hnsw_index, embeddings_ready, hnsw_index, nearest_messages
from db.types import Connection
from memory.core import event_loop
from memory.llm import EMBEDDING_DIMENSIONS

BENCH = "recall_vectors"
MODEL = "bench:random"
LONG = 3600.0  # seconds: filling and indexing take longer than a request's timeout


async def fill(pool: asyncpg.Pool, messages: int, guilds: int) -> float:
    """Messages and random unit vectors; the seconds the HNSW build took (with 1 GB of
    maintenance_work_mem, so the graph is built in memory as an operator would)."""
    async with pool.acquire() as connection:
        return await _fill(connection, messages, guilds)


async def _fill(pool: Connection, messages: int, guilds: int) -> float:
    await pool.execute("SET maintenance_work_mem = '1GB'")
    await pool.execute(
        """
        INSERT INTO messages (message_id, guild_id, channel_id, author_id, content, created_at)
        SELECT n, 1 + n % $2, 1, 100 + n % 500, 'message ' || n,
               now() - make_interval(secs => n)
        FROM generate_series(1, $1) AS n
        """,
        messages,
        guilds,
        timeout=LONG,
    )
    await pool.execute(f"DROP INDEX {hnsw_index(EMBEDDING_DIMENSIONS)}")
    await pool.execute(
        """
        INSERT INTO message_embeddings (message_id, guild_id, model, content_md5, embedding)
        SELECT m.message_id, m.guild_id, $1, md5(m.content),
               l2_normalize((SELECT array_agg(random() - 0.5)::vector
                             FROM generate_series(1, $2) WHERE m.message_id > 0))::halfvec
        FROM messages m
        """,
        MODEL,
        EMBEDDING_DIMENSIONS,
        timeout=LONG,
    )
    began = time.perf_counter()
    await pool.execute(create_hnsw_index(EMBEDDING_DIMENSIONS), timeout=LONG)
    seconds = time.perf_counter() - began
    await pool.execute("ANALYZE", timeout=LONG)
    return seconds


def _unit(rnd: random.Random) -> list[float]:
    vector = [rnd.gauss(0, 1) for _ in range(EMBEDDING_DIMENSIONS)]
    norm = sum(value * value for value in vector) ** 0.5
    return [value / norm for value in vector]


async def run(
    pool: asyncpg.Pool, report: Reporter, *, messages: int, guilds: int, queries: int
) -> None:
    if not await embeddings_ready(pool):
        raise SystemExit("this PostgreSQL has no pgvector: nothing to measure")
    params: dict[str, Any] = {"messages": messages, "guilds": guilds}
    report(BENCH, "hnsw_build_s", await fill(pool, messages, guilds), "s", **params)
    rnd = random.Random(7)
    for scope, user in (("guild", None), ("member", 100)):
        times, found = [], []
        for _ in range(queries):
            vector = _unit(rnd)
            milliseconds, rows = await timed(
                partial(nearest_messages, pool, 1, vector, model=MODEL, limit=10, user_id=user)
            )
            times.append(milliseconds)
            found.append(len(rows))
        for name, q in (("p50", 0.5), ("p99", 0.99)):
            report(BENCH, f"nearest_{name}_ms", percentile(times, q), "ms", scope=scope, **params)
        report(BENCH, "rows_per_query", sum(found) / len(found), "rows", scope=scope, **params)
    size = await pool.fetchval("SELECT pg_total_relation_size('message_embeddings')")
    report(BENCH, "embeddings_table_mb", size / 2**20, "MB", **params)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--guilds", type=int, default=10)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args(argv)
    async with bench_server() as server, server.pool("recall_vectors") as pool:
        await run(
            pool, Reporter(), messages=args.messages, guilds=args.guilds, queries=args.queries
        )
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(event_loop.run(main()))
