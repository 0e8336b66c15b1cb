"""V024: `llm_usage` rows written before it (answered calls only) become outcome 'ok', and the
widened key keeps an answered call, a failed attempt and an estimate of one day apart."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import asyncpg

from db.embedded import EmbeddedPostgres
from db.lifecycle import ensure_database
from db.migrate import MIGRATIONS_DIR, migrate
from db.usage import UsageRow, add_usage, usage_since

DAY = date(2025, 6, 30)


async def test_rows_from_before_v024_are_answered_calls(
    pg_server: EmbeddedPostgres, tmp_path: Path
) -> None:
    admin = await asyncpg.connect(pg_server.uri())
    try:
        await admin.execute('DROP DATABASE IF EXISTS "usage_v024" WITH (FORCE)')
    finally:
        await admin.close()
    await ensure_database(pg_server.uri(), "usage_v024")
    shutil.copy(MIGRATIONS_DIR / "V017__llm_usage.sql", tmp_path)
    connection = await asyncpg.connect(pg_server.uri("usage_v024"))
    try:
        await migrate(connection, tmp_path)
        await connection.execute(
            "INSERT INTO llm_usage (day, guild_id, purpose, provider, model, calls,"
            " input_tokens, output_tokens) VALUES ($1, 7, 'reply', 'gemini', 'flash', 4, 400, 40)",
            DAY,
        )
        shutil.copy(MIGRATIONS_DIR / "V024__llm_usage_attempts.sql", tmp_path)
        assert await migrate(connection, tmp_path) == [24]
        await add_usage(
            connection,
            [
                UsageRow(DAY, 7, "reply", "gemini", "flash", 1, 100, 10),
                UsageRow(DAY, 7, "reply", "gemini", "flash", 3, 0, 0, "fallback", "LLMUnavailable"),
                UsageRow(DAY, 7, "reply", "gemini", "flash", 2, 50, 5, estimated=True),
            ],
        )
        rows = await usage_since(connection, DAY)
    finally:
        await connection.close()
    assert sorted(rows, key=lambda row: (row.outcome, row.estimated)) == [
        UsageRow(DAY, 7, "reply", "gemini", "flash", 3, 0, 0, "fallback", "LLMUnavailable"),
        UsageRow(DAY, 7, "reply", "gemini", "flash", 5, 500, 50, "ok", "", False),
        UsageRow(DAY, 7, "reply", "gemini", "flash", 2, 50, 5, "ok", "", True),
    ]
