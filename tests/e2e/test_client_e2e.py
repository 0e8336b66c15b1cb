"""MemoryBot start-up and shutdown: missing cogs are skipped, SIGTERM closes cleanly and every
queued message reaches the database first."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import subprocess
import sys
from pathlib import Path

import asyncpg
import psutil

from bot.client import EXTENSIONS, MemoryBot, bot_intents, serve
from db.embedded import EmbeddedPostgres
from db.lifecycle import EMBEDDED_DATABASE
from memory.core.settings import Settings
from tests.e2e.conftest import StartBot
from tests.e2e.fake_discord import FakeDiscord, eventually


async def test_missing_extensions_are_skipped(start_bot: StartBot) -> None:
    bot = await start_bot(extensions=["bot.cogs.ingest", "bot.cogs.not_written_yet"])
    assert list(bot.cogs) == ["Ingest"]
    assert "bot.cogs.ingest" in EXTENSIONS and EXTENSIONS[0] == "bot.cogs.errors"
    assert bot.intents.message_content and bot.intents.members and bot.intents.guilds


async def test_start_up_objects_are_out_of_the_collectors_sight_once_ready(
    start_bot: StartBot,
) -> None:
    """A full collection walks only what was made after start-up (a ~50 ms stall of a reply
    in the reply bench otherwise)."""
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    bot = await start_bot(extensions=[])
    await eventually(lambda: gc.get_freeze_count() > 0)
    assert bot.is_ready()


async def test_sigterm_stops_the_bot_after_flushing(
    fake_discord: FakeDiscord, database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    settings = Settings(
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
    assert fake_discord.identify is not None
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


# `memorybot run` in a child process, with discord.py pointed at the test's fake Discord.
BOT_PROCESS = """
import os, sys
import discord.gateway, discord.http, yarl
discord.http.Route.BASE = os.environ["FAKE_DISCORD_API"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["FAKE_DISCORD_GATEWAY"])
from bot.cli import main
sys.exit(main(["run"]))
"""


def _bot_env(fake: FakeDiscord, root: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "DISCORD_", "LLM_", "OPENAI_", "GEMINI_"))
    }
    env.update(
        FAKE_DISCORD_API=fake.api_base,
        FAKE_DISCORD_GATEWAY=fake.gateway_url,
        DISCORD_TOKEN="fake-token",
        DATA_DIR=str(root / "data"),  # embedded PostgreSQL under data/pg
        LOG_DIR=str(root / "logs"),
        LLM_PROVIDER="offline",
        TELEMETRY_STDOUT="false",
        INGEST_FLUSH_SECONDS="60",  # only shutdown can flush within this test
        REPLY_COOLDOWN_SECONDS="0",
    )
    return env


async def _stored_after_restart(data_dir: Path) -> list[int]:
    server = EmbeddedPostgres(data_dir)
    server.start()
    try:
        connection = await asyncpg.connect(server.uri(EMBEDDED_DATABASE))
        try:
            rows = await connection.fetch("SELECT message_id FROM messages ORDER BY 1")
        finally:
            await connection.close()
    finally:
        server.stop()
    return [row["message_id"] for row in rows]


async def test_repeated_sigterm_still_drains_writes_and_stops_postgres(
    fake_discord: FakeDiscord, server_tmp_path: Path
) -> None:
    """`docker stop` twice (or Ctrl-C hammered): SIGTERM every 20 ms from the first one on.
    The process still exits 0 after writing every queued message and stopping its
    embedded PostgreSQL."""
    log = server_tmp_path / "bot.log"
    with log.open("w") as log_file:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            BOT_PROCESS,
            env=_bot_env(fake_discord, server_tmp_path),
            cwd=server_tmp_path,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        await fake_discord.wait_connected(timeout=90)
        sent = [await fake_discord.send_message(f"queued {i}") for i in range(30)]
        sent.append(await fake_discord.send_message("Bot, are you there?"))
        # the reply's typing call comes after the gateway delivered every message above
        await eventually(lambda: fake_discord.typing, timeout=30)
        pg_dir = server_tmp_path / "data" / "pg"
        postmaster = int((pg_dir / "postmaster.pid").read_text().split()[0])

        signals = 0
        deadline = asyncio.get_running_loop().time() + 60
        while process.returncode is None:
            assert asyncio.get_running_loop().time() < deadline, "the bot did not stop"
            process.send_signal(signal.SIGTERM)
            signals += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 0.02)
    finally:
        if process.returncode is None:
            process.kill()
        await asyncio.wait_for(process.wait(), 10)
    output = log.read_text()
    assert process.returncode == 0, output[-3000:]
    assert signals > 1 and "shutdown already under way" in output
    if psutil.pid_exists(postmaster):
        psutil.Process(postmaster).wait(timeout=15)
    assert not psutil.pid_exists(postmaster), "embedded PostgreSQL left running"
    assert await _stored_after_restart(pg_dir) == [int(m["id"]) for m in sent]


async def test_slash_commands_sync_only_when_the_tree_changed(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    from tests.e2e.fake_discord import GUILD_ID

    first = await start_bot(extensions=["bot.cogs.facts"])
    assert fake_discord.sync_calls == [None]
    await first.close()
    await start_bot(extensions=["bot.cogs.facts"])  # a restart with the same commands
    assert fake_discord.sync_calls == [None], "an unchanged tree is not synced again"
    await start_bot(extensions=["bot.cogs.facts", "bot.cogs.recall"])  # a new command
    assert fake_discord.sync_calls == [None, None]
    await start_bot(extensions=["bot.cogs.facts", "bot.cogs.recall"], dev_guild_id=GUILD_ID)
    assert fake_discord.sync_calls == [None, None, GUILD_ID]  # the dev guild, at once
