"""Every query in `db/` over a distributed table is bound to one guild (a guild_id filter by a
parameter, or an INSERT that names guild_id), so Citus sends it to one shard, or it is a listed
coordinator query with its reason (issue 46). The SQL is read from the source with `ast`
(tests/db/sql_scan.py); the distributed tables from the migrated catalog."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from tests.db.citus_plan import COORDINATOR_QUERIES, distributed_tables
from tests.db.sql_scan import Statement, statements_in, statements_of, unrouted

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def distributed(database_dsn: str) -> list[str]:
    connection = await asyncpg.connect(database_dsn)
    try:
        return await distributed_tables(connection)
    finally:
        await connection.close()


def _statements() -> list[Statement]:
    return statements_of(ROOT / "db", ROOT)


def test_the_scan_sees_the_sql_of_db() -> None:
    """A rule that reads no query holds nothing: the scan finds the known statements, with
    holes filled from module constants."""
    statements = _statements()
    keys = {statement.key for statement in statements}
    assert len(statements) > 150
    assert {"db/facts.py:lock_facts", "db/messages.py:insert_messages", "db/usage.py:_ADD"} <= keys
    locking = [s.one_line for s in statements if s.key == "db/facts.py:lock_facts"]
    assert "SELECT guild_id, user_id, blob, version, updated_at FROM user_facts" in " ".join(
        locking
    ), locking  # the f-string's hole filled from the module's constant
    exchange = next(s for s in statements if s.key == "db/recall_exchange.py:_AROUND")
    assert "m.guild_id = $1 AND NOT m.deleted" in exchange.text  # filled from _KEEP
    insert = next(s for s in statements if s.key == "db/messages.py:insert_messages")
    assert insert.bound_to_guild, insert.one_line


async def test_every_query_is_bound_to_a_guild_or_a_listed_coordinator_query(
    distributed: list[str],
) -> None:
    found = unrouted(_statements(), distributed, COORDINATOR_QUERIES)
    assert [f"{s.key} (line {s.line}): {s.one_line[:120]}" for s in found] == []


async def test_every_listed_coordinator_query_exists_and_needs_its_entry(
    distributed: list[str],
) -> None:
    """A stale entry (the query moved, or now filters by guild) fails: the list stays small."""
    needing = {statement.key for statement in unrouted(_statements(), distributed, ())}
    assert sorted(set(COORDINATOR_QUERIES) - needing) == []
    assert all(reason.strip() for reason in COORDINATOR_QUERIES.values())


PLANTED = """
async def by_channel(db, channel_id):
    return await db.fetch("SELECT * FROM messages WHERE channel_id = $1", channel_id)

async def by_guild(db, guild_id, channel_id):
    return await db.fetch(
        "SELECT * FROM messages WHERE guild_id = $1 AND channel_id = $2", guild_id, channel_id
    )

async def put(db, guild_id, key):
    await db.execute("INSERT INTO recall_terms (guild_id, term, docs) VALUES ($1, $2, 1)", key)

async def state(db, key):
    return await db.fetchval("SELECT value FROM bot_state WHERE key = $1", key)

async def lock(db, key):
    await db.execute("SELECT pg_advisory_lock($1)", key)

async def named_at_run_time(db, table):
    await db.execute(f"DELETE FROM {table} WHERE user_id = $1", 1)

async def sweep(db):
    return await db.fetch("SELECT DISTINCT guild_id FROM summary_days WHERE stale")
"""


async def test_a_new_query_that_is_neither_fails(distributed: list[str]) -> None:
    """Planted queries: one by channel id alone, one over a table named at run time, and a
    cross-guild sweep are caught; guild-bound ones, a coordinator table's and a lock are not;
    listing the sweep lets it through."""
    statements = statements_in("db/planted.py", PLANTED)
    caught = [s.owner for s in unrouted(statements, distributed, COORDINATOR_QUERIES)]
    assert caught == ["by_channel", "named_at_run_time", "sweep"]
    listed = {**COORDINATOR_QUERIES, "db/planted.py:sweep": "a test's sweep"}
    assert [s.owner for s in unrouted(statements, distributed, listed)] == [
        "by_channel",
        "named_at_run_time",
    ]
