"""The status cog against the fake Discord: the start-up banner names the guilds, and the
heartbeat file `memorybot health` reads exists while connected and is gone after close."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.heartbeat import heartbeat_age, heartbeat_path
from tests.e2e.conftest import StartBot
from tests.e2e.fake_discord import FakeDiscord


async def test_banner_and_heartbeat(
    fake_discord: FakeDiscord, start_bot: StartBot, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="bot.cogs.status"):
        bot = await start_bot(extensions=["bot.cogs.status"])
        log_dir = bot.memory.settings.log_dir

        def said() -> str:
            return "\n".join(r.getMessage() for r in caplog.records if r.name == "bot.cogs.status")

        for _ in range(200):  # on_ready runs as its own task right after READY
            if "connected as" in said() and heartbeat_age(log_dir) is not None:
                break
            await asyncio.sleep(0.02)
    text = said()
    assert "memorybot " in text and "reply, window_fold, whois: offline" in text
    assert "connected as memorybot to 1 guild: Test Guild" in text
    assert "fake-token" not in text
    age = heartbeat_age(log_dir)
    assert age is not None and age < 60
    await bot.close()
    assert not heartbeat_path(log_dir).exists()
