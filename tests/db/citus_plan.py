"""The plan for Citus (issue 46), as lists the tests hold the schema, the SQL of `db/` and
docs/operations.md to: which tables stay on the coordinator and why (every other table is
distributed by guild_id, co-located with `guilds`), and which queries of `db/` may run across
every guild and why (every other query over a distributed table is bound to one guild).

Also the checks of the catalog (pg_index, pg_constraint) that a distributed table can be one.
"""

from __future__ import annotations

from db.types import Connection

DISTRIBUTION_COLUMN = "guild_id"
COLOCATE_WITH = "guilds"

# Tables left as plain tables on the coordinator (no guild; nothing joins them with a guild's
# rows, so none needs to be a reference table copied to every worker).
COORDINATOR_TABLES: dict[str, str] = {
    "schema_migrations": "the migration runner's record, read and written under its advisory lock",
    "bot_state": "process-wide facts (synced command tree, shard owners), no guild",
    "llm_rate_slots": "one row per model: the rate limit all processes share, no guild",
    "llm_capabilities": "what each model endpoint accepts, no guild",
    "pgqueuer": "the job queue: FOR UPDATE SKIP LOCKED and LISTEN/NOTIFY on one node",
    "pgqueuer_log": "the job queue's log, written with the queue",
    "pgqueuer_statistics": "the job queue's counters, written with the queue",
    "pgqueuer_schedules": "the job queue's schedules, read with the queue",
}

# Queries of `db/` over distributed tables that are not bound to one guild: on Citus they run
# on every shard (or, for batches, on the shards of the rows' guilds). Keyed by module and the
# function (or module-level constant) holding the SQL.
_SWEEP = "a scheduled sweep over every guild (one fan-out per run, not per message)"
COORDINATOR_QUERIES: dict[str, str] = {
    # Sweeps: the worker's and the admin's reads across guilds.
    "db/activity.py:guild_rows": "the dashboard's list of every guild",
    "db/privacy.py:guilds_named": "the CLI finds a guild by its name (admin, rare)",
    "db/episode_reads.py:digest_guilds": _SWEEP + ": guilds with a digest set",
    "db/episodes.py:close_quiet": _SWEEP + ": open episodes gone quiet",
    "db/episodes.py:unsegmented_channels": _SWEEP + ": channels with messages to cut",
    "db/episodes.py:guilds_due_summary": _SWEEP + ": guilds with episodes to summarise",
    "db/episodes.py:guilds_with_open": _SWEEP + ": guilds with an open episode",
    "db/jobs.py:due_days": _SWEEP + ": guild-days due a summary",
    "db/embeddings.py:guilds_to_embed": _SWEEP + ": guilds with messages to embed",
    "db/retention.py:delete_messages_before": _SWEEP + ": retention deletes by age",
    "db/retention.py:count_messages_before": _SWEEP + ": retention counts by age",
    "db/usage.py:tokens_on": "the daily token budget is one sum over every guild",
    # Batches: each row carries its guild, joined on guild_id (co-located on Citus).
    "db/messages.py:_MARK_STALE": "a batch's changed rows mark their guild-days stale",
    "db/usage.py:_ADD": "a batch of usage rows, each with its guild_id (0: none)",
    # By message id only.
    "db/messages.py:get_message": "one message by its id, read only by tests (a fan-out)",
}


async def distributed_tables(connection: Connection) -> list[str]:
    """The tables of the migrated schema that are not coordinator tables."""
    rows = await connection.fetch(
        """
        SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema()
        ORDER BY c.relname
        """
    )
    return [row["relname"] for row in rows if row["relname"] not in COORDINATOR_TABLES]


async def distribution_problems(connection: Connection, tables: list[str]) -> list[str]:
    """What keeps each of `tables` from being distributed by guild_id: no guild_id column, a
    primary key or unique index without it, a foreign key that does not carry it to a
    distributed table (or points at a coordinator table)."""
    problems: list[str] = []
    columns = await connection.fetch(
        """
        SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
        WHERE a.attname = $1 AND NOT a.attisdropped AND a.attnotnull AND c.relname = ANY($2)
        """,
        DISTRIBUTION_COLUMN,
        tables,
    )
    with_column = {row["relname"] for row in columns}
    problems += [
        f"{table}: no NOT NULL guild_id column" for table in tables if table not in with_column
    ]
    unique = await connection.fetch(
        """
        SELECT i.indrelid::regclass::text AS table_name, i.indexrelid::regclass::text AS index_name
        FROM pg_index i
        WHERE i.indisunique AND i.indrelid::regclass::text = ANY($2)
          AND NOT EXISTS (
              SELECT 1 FROM pg_attribute a
              WHERE a.attrelid = i.indrelid AND a.attname = $1
                AND a.attnum = ANY(i.indkey::int2[]))
        ORDER BY 1, 2
        """,
        DISTRIBUTION_COLUMN,
        tables,
    )
    problems += [
        f"{row['table_name']}: unique index {row['index_name']} without guild_id" for row in unique
    ]
    return problems + await _foreign_key_problems(connection, tables)


async def _foreign_key_problems(connection: Connection, tables: list[str]) -> list[str]:
    """Foreign keys from `tables` that Citus could not keep: each must pair guild_id with
    guild_id (co-located), toward a distributed table."""
    rows = await connection.fetch(
        """
        SELECT f.conname, f.conrelid::regclass::text AS source,
               f.confrelid::regclass::text AS target,
               EXISTS (
                   SELECT 1 FROM unnest(f.conkey, f.confkey) AS k(mine, theirs)
                   JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.mine
                   JOIN pg_attribute b ON b.attrelid = f.confrelid AND b.attnum = k.theirs
                   WHERE a.attname = $1 AND b.attname = $1
               ) AS paired
        FROM pg_constraint f
        WHERE f.contype = 'f' AND f.conrelid::regclass::text = ANY($2)
        ORDER BY 2, 1
        """,
        DISTRIBUTION_COLUMN,
        tables,
    )
    problems: list[str] = []
    for row in rows:
        if row["target"] not in tables:
            problems.append(f"{row['source']}: foreign key {row['conname']} to {row['target']}")
        elif not row["paired"]:
            problems.append(f"{row['source']}: foreign key {row['conname']} without guild_id")
    return problems
