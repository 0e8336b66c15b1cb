"""V026/V027 re-key the tables keyed by an id of their own to (guild_id, id) for Citus (issue
46): a database that had rows before keeps every one of them, and the keys still do their
work afterwards (a duplicate is refused, a delete cascades, an undo link clears)."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from db.embedded import EmbeddedPostgres
from db.migrate import migrate
from tests.db.migration_support import migrated_before

GUILD = 7
_ROWS = """
INSERT INTO messages (message_id, guild_id, channel_id, author_id, content, created_at)
VALUES (101, 7, 70, 1, 'hello there', '2026-01-05 10:00+00'),
       (102, 7, 70, 2, 'general kenobi', '2026-01-05 10:01+00');
INSERT INTO fact_history (id, guild_id, user_id, version, old_blob, new_blob, command)
VALUES (1, 7, 1, 1, '', 'likes tea', 'remember');
INSERT INTO fact_history (id, guild_id, user_id, version, old_blob, new_blob, command, reverts_id)
VALUES (2, 7, 1, 2, 'likes tea', '', 'undo', 1);
INSERT INTO forgotten_statements (guild_id, user_id, statement) VALUES (7, 1, 'a secret');
INSERT INTO learned_facts (id, guild_id, user_id, subject, statement, first_seen, last_seen)
VALUES (1, 7, 1, 'home', 'lives in Oslo', '2026-01-01', '2026-01-01');
INSERT INTO learned_facts (id, guild_id, user_id, subject, statement, first_seen, last_seen,
                           superseded_by)
VALUES (2, 7, 1, 'home', 'lived in Bergen', '2025-01-01', '2025-01-01', 1);
INSERT INTO episodes (guild_id, channel_id, first_message_id, last_message_id, started_at,
                      ended_at, message_count)
VALUES (7, 70, 101, 102, '2026-01-05 10:00+00', '2026-01-05 10:01+00', 2);
INSERT INTO channel_names (channel_id, guild_id, name) VALUES (70, 7, 'general');
"""
_COUNTS = """
SELECT (SELECT count(*) FROM messages) AS messages,
       (SELECT count(*) FROM fact_history) AS fact_history,
       (SELECT count(*) FROM forgotten_statements) AS forgotten,
       (SELECT count(*) FROM learned_facts) AS learned,
       (SELECT count(*) FROM episodes) AS episodes,
       (SELECT count(*) FROM channel_names) AS channel_names,
       (SELECT count(*) FROM message_embeddings) AS embeddings
"""


async def _before_v026(pg_server: EmbeddedPostgres, tmp_path: Path) -> asyncpg.Connection:
    """A database migrated as it was before V026, with a row in every re-keyed table."""
    connection = await migrated_before(pg_server, tmp_path, "keys_by_guild", 26)
    await connection.execute(_ROWS)
    await connection.execute(
        "INSERT INTO message_embeddings (message_id, guild_id, model, content_md5, embedding)"
        " VALUES (101, 7, 'm', 'x', array_fill(0.5, ARRAY[768])::halfvec)"
    )
    return connection


async def test_rekeying_keeps_every_row_and_the_keys_still_hold(
    pg_server: EmbeddedPostgres, tmp_path: Path
) -> None:
    connection = await _before_v026(pg_server, tmp_path)
    try:
        before = await _counts(connection)
        assert await migrate(connection) == [26, 27, 28]
        assert await _counts(connection) == before
        with pytest.raises(asyncpg.UniqueViolationError):
            await connection.execute(
                "INSERT INTO messages (message_id, guild_id, channel_id, author_id, created_at)"
                " VALUES (101, 7, 70, 1, now())"
            )
        await connection.execute("DELETE FROM messages WHERE message_id = 101")
        assert await connection.fetchval("SELECT count(*) FROM message_embeddings") == 0
        await connection.execute("DELETE FROM fact_history WHERE id = 1")
        undo = await connection.fetchrow("SELECT guild_id, reverts_id FROM fact_history")
        assert undo is not None
        assert (undo["guild_id"], undo["reverts_id"]) == (GUILD, None)
        await connection.execute("DELETE FROM learned_facts WHERE id = 1")
        old = await connection.fetchrow("SELECT guild_id, superseded_by FROM learned_facts")
        assert old is not None
        assert (old["guild_id"], old["superseded_by"]) == (GUILD, None)
        assert await migrate(connection) == []
    finally:
        await connection.close()


async def _counts(connection: asyncpg.Connection) -> dict[str, int]:
    row = await connection.fetchrow(_COUNTS)
    assert row is not None
    return dict(row)
