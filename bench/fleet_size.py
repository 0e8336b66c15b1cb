"""How the database grows with the fleet: bytes per stored message, with and without vectors,
measured on a sample and extrapolated.

Sample guilds of bench/synthetic.py (log-normal message lengths, members, facts) are stored as
the writer stores them; every table's `pg_total_relation_size` (heap, TOAST and indexes: the
full-text and per-member indexes included) over the messages is the cost of a message without
vectors. The local embedder of the default install then embeds them (pgvector, HNSW index):
`message_embeddings` over the messages is what a vector adds. A fleet's size is its retained
messages (a day of `daily_messages` times RETENTION_DAYS) at those rates: an extrapolation.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from bench.fleet_days import daily_messages
from bench.recall_hybrid import local_index
from bench.synthetic import GuildSpec, SyntheticGuild, load_guild

RETENTION_DAYS = 30  # RETENTION_DAYS' default: raw messages older are deleted
_TABLES = """
    SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND c.relname <> ALL($1::text[])
"""
_VECTORS = ["message_embeddings"]


@dataclass(frozen=True)
class SizeSample:
    messages: int
    bytes_per_message: float  # every table but the vectors
    vector_bytes_per_message: float

    @property
    def with_vectors(self) -> float:
        return self.bytes_per_message + self.vector_bytes_per_message


async def measure(pool: asyncpg.Pool, *, guilds: int, messages_per_day: int) -> SizeSample:
    """Store `guilds` sample guilds of a week each, then embed them; bytes per message."""
    empty = await pool.fetchval(_TABLES, _VECTORS)
    stored = 0
    for number in range(1, guilds + 1):
        spec = GuildSpec(guild_id=number, members=30, messages_per_day=messages_per_day, seed=7)
        stored += await load_guild(pool, SyntheticGuild(spec), analyze=False)
    await pool.execute("VACUUM ANALYZE")
    without = await pool.fetchval(_TABLES, _VECTORS) - empty
    vectors_empty = await pool.fetchval(_TABLES, [])  # everything, before embedding
    index = local_index(pool)
    for number in range(1, guilds + 1):
        await index.embed_guild(number)
    await pool.execute("VACUUM ANALYZE")
    vectors = await pool.fetchval(_TABLES, []) - vectors_empty
    return SizeSample(stored, without / max(1, stored), vectors / max(1, stored))


def retained_messages(guilds: int) -> int:
    """Messages a fleet of `guilds` holds at once: a day's, kept RETENTION_DAYS."""
    return sum(daily_messages(guilds)) * RETENTION_DAYS
