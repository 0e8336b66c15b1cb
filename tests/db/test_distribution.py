"""The schema the migrations build can be distributed by guild on Citus (issue 46): every
table either carries guild_id in every primary key, unique index and foreign key (so Citus can
shard it by guild and co-locate it with `guilds`), or is a named coordinator table. Read from
the catalog of the real migrated database, not from the DDL text."""

from __future__ import annotations

import asyncpg

from tests.db.citus_plan import (
    COORDINATOR_TABLES,
    distributed_tables,
    distribution_problems,
)


async def test_every_table_distributes_by_guild_or_is_a_coordinator_table(
    database_dsn: str,
) -> None:
    connection = await asyncpg.connect(database_dsn)
    try:
        tables = await distributed_tables(connection)
        problems = await distribution_problems(connection, tables)
    finally:
        await connection.close()
    assert "messages" in tables and "guilds" in tables
    assert problems == []


async def test_the_coordinator_tables_exist_and_hold_no_guild(database_dsn: str) -> None:
    """A stale entry (a table renamed or dropped) or a guild table parked on the coordinator
    fails: the list says only what is true of the schema."""
    connection = await asyncpg.connect(database_dsn)
    try:
        rows = await connection.fetch(
            """
            SELECT c.relname,
                   EXISTS (SELECT 1 FROM pg_attribute a
                           WHERE a.attrelid = c.oid AND a.attname = 'guild_id'
                             AND NOT a.attisdropped) AS has_guild
            FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relname = ANY($1)
            """,
            list(COORDINATOR_TABLES),
        )
        references = await connection.fetch(
            "SELECT conname FROM pg_constraint WHERE contype = 'f'"
            " AND conrelid::regclass::text = ANY($1) AND NOT confrelid::regclass::text = ANY($1)",
            list(COORDINATOR_TABLES),
        )
    finally:
        await connection.close()
    assert sorted(row["relname"] for row in rows) == sorted(COORDINATOR_TABLES)
    assert [row["relname"] for row in rows if row["has_guild"]] == []
    assert references == [], "a coordinator table may not reference a distributed one"


async def test_a_key_without_the_guild_is_found(database_dsn: str) -> None:
    """The check can fail: a table keyed by its own id, a unique index and a foreign key
    without guild_id are each reported."""
    connection = await asyncpg.connect(database_dsn)
    try:
        await connection.execute(
            """
            CREATE TABLE planted (id bigint PRIMARY KEY, guild_id bigint NOT NULL,
                                  message_id bigint,
                                  FOREIGN KEY (guild_id, message_id)
                                      REFERENCES messages (guild_id, message_id));
            CREATE UNIQUE INDEX planted_message ON planted (message_id);
            CREATE TABLE planted_child (guild_id bigint NOT NULL, planted_id bigint,
                                        PRIMARY KEY (guild_id, planted_id),
                                        FOREIGN KEY (planted_id) REFERENCES planted (id));
            CREATE TABLE planted_orphan (name text PRIMARY KEY);
            """
        )
        tables = await distributed_tables(connection)
        problems = await distribution_problems(connection, tables)
    finally:
        await connection.close()
    assert sorted(problems) == [
        "planted: unique index planted_message without guild_id",
        "planted: unique index planted_pkey without guild_id",
        "planted_child: foreign key planted_child_planted_id_fkey without guild_id",
        "planted_orphan: no NOT NULL guild_id column",
        "planted_orphan: unique index planted_orphan_pkey without guild_id",
    ]
