"""MemoryBot start-up and shutdown: missing cogs are skipped, SIGTERM closes cleanly and every
queued message reaches the database first."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import asyncpg

from bot.client import EXTENSIONS, MemoryBot, bot_intents, serve
from memory.core.settings import Settings
from tests.e2e.conftest import StartBot
from tests.e2e.fake_discord import FakeDiscord, eventually


async def test_missing_extensions_are_skipped(start_bot: StartBot) -> None:
    bot = await start_bot(extensions=["bot.cogs.ingest", "bot.cogs.not_written_yet"])
    assert list(bot.cogs) == ["Ingest"]
    assert "bot.cogs.ingest" in EXTENSIONS and EXTENSIONS[0] == "bot.cogs.errors"
    assert bot.intents.message_content and bot.intents.members and bot.intents.guilds


async def test_sigterm_stops_the_bot_after_flushing(
    fake_discord: FakeDiscord, database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token="fake-token",
        database_url=database_dsn,
        ingest_flush_seconds=60,  # only shutdown can flush within this test
        telemetry_stdout=False,
        log_dir=tmp_path / "logs",
        llm_provider="offline",
    )
    bots: list[MemoryBot] = []
    task = asyncio.create_task(serve(settings, on_start=bots.append))
    await fake_discord.wait_connected()
    assert fake_discord.identify["intents"] == bot_intents().value
    sent = [await fake_discord.send_message(f"last words {i}") for i in range(3)]
    writer = bots[0].memory.writer
    # queued, not written: the guild row, its four members and the three messages
    await eventually(lambda: writer.depth == 8)
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 0
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(task, 30) == 0
    rows = await db_pool.fetch("SELECT message_id FROM messages ORDER BY message_id")
    assert [r["message_id"] for r in rows] == [int(m["id"]) for m in sent]
