"""`summarize --date` on a day whose messages retention removed keeps the stored summary."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member

GUILD, ALICE, BOB = 5150, 311111111111111111, 322222222222222222
DAY = datetime(2026, 11, 10, 9, tzinfo=UTC)


async def _stored(db_pool: asyncpg.Pool) -> list[tuple[int, str]]:
    rows = await db_pool.fetch(
        "SELECT user_id, summary FROM daily_summaries WHERE guild_id = $1 AND day = $2"
        " ORDER BY user_id",
        GUILD,
        DAY.date(),
    )
    return [(row["user_id"], row["summary"]) for row in rows]


async def test_summarize_keeps_a_day_whose_messages_retention_removed(
    cli_env: Path,
    db_pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await db_pool.execute("INSERT INTO guilds (guild_id, name) VALUES ($1, 'Hikers')", GUILD)
    await upsert_members(
        db_pool, [Member(GUILD, ALICE, username="alice"), Member(GUILD, BOB, username="bob")]
    )
    await insert_messages(
        db_pool,
        [
            ChatMessage(90001, GUILD, 7, ALICE, "I finally climbed the north ridge today", DAY),
            ChatMessage(90002, GUILD, 7, BOB, "well done alice, was it cold up there?", DAY),
        ],
    )
    monkeypatch.setenv("MEMORYBOT_NOW", "2026-11-11T12:00:00+00:00")
    argv = ["summarize", "--guild", "Hikers", "--date", "2026-11-10"]
    assert await asyncio.to_thread(main, argv) == 0
    summarised = await _stored(db_pool)
    assert any("ridge" in text for _, text in summarised), summarised
    first = capsys.readouterr().out.splitlines()[0]
    # The name typed is the name printed; counts read as words ("1 LLM call", not "calls").
    assert first.startswith(f"Guild Hikers (id {GUILD}), 2026-11-10: 2 messages"), first
    assert "(s)" not in first

    later = "2026-11-25T12:00:00+00:00"
    monkeypatch.setenv("MEMORYBOT_NOW", later)
    assert await asyncio.to_thread(main, ["retention", "run", "--days", "3"]) == 0
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 0
    capsys.readouterr()

    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "kept" in first and "retention" in first, out
    assert "nothing changed" in first
    assert "no member to summarise" not in out
    assert "ridge" in out  # the kept summary is shown
    assert await _stored(db_pool) == summarised  # nothing wiped

    # --if-changed says the same, and changes nothing either.
    assert await asyncio.to_thread(main, [*argv, "--if-changed"]) == 0
    assert "retention" in capsys.readouterr().out.splitlines()[0]
    assert await _stored(db_pool) == summarised
