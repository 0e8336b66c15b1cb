"""Fixtures for end-to-end tests: the fake Discord (tests/e2e/fake_discord.py) and the real
MemoryBot connected to it, on the per-test embedded PostgreSQL database.

    async def test_x(fake_discord, start_bot, db_pool):
        bot = await start_bot(ingest_flush_seconds=0.05)   # Settings overrides
        await fake_discord.send_message("hi", author="alice")
        await bot.memory.writer.flush()

`start_bot(extensions=[...], clock=..., llm=..., **settings)` returns a connected, READY
MemoryBot whose memory uses `db_pool` and the test's `telemetry` (and `llm` instead of the
configured providers, when given); every bot started is closed (and its writer flushed) after
the test.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.client import MemoryBot
from db.members import find_by_name
from memory.core.clock import Clock, SystemClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM
from memory.wiring import Memory, open_memory
from tests.e2e.fake_discord import GUILD_ID, FakeDiscord
from tests.support import eventually

StartBot = Callable[..., Awaitable[MemoryBot]]

# Quick flushes so tests do not wait on the production interval.
TEST_SETTINGS: dict[str, Any] = {
    "discord_token": "fake-token",
    "ingest_flush_seconds": 0.05,
    "telemetry_stdout": False,
    "llm_provider": "offline",
}


def wired(bot: MemoryBot) -> Memory:
    """Everything behind the bot's front door: the bot sees six faces, a test may reach the
    pool and the services themselves (the bot under test is always given a whole `Memory`)."""
    memory = bot.memory
    assert isinstance(memory, Memory), type(memory)
    return memory


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A running fake Discord with discord.py pointed at it (undone after the test)."""
    async with FakeDiscord() as fake:
        yield fake


@pytest.fixture
def e2e_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings for a bot under test: no .env, quick flushes, logs under tmp_path."""

    def build(**overrides: Any) -> Settings:
        values = {**TEST_SETTINGS, "log_dir": tmp_path / "logs", **overrides}
        return Settings(_env_file=None, **values)

    return build


@pytest.fixture
async def start_bot(
    fake_discord: FakeDiscord,
    db_pool: asyncpg.Pool,
    telemetry: Telemetry,
    e2e_settings: Callable[..., Settings],
) -> AsyncIterator[StartBot]:
    async with AsyncExitStack() as stack:

        async def start(
            *,
            extensions: list[str] | None = None,
            clock: Clock | None = None,
            pool: asyncpg.Pool | None = None,
            llm: MemoryLLM | None = None,
            **overrides: Any,
        ) -> MemoryBot:
            settings = e2e_settings(**overrides)
            memory = await stack.enter_async_context(
                open_memory(
                    settings,
                    pool=pool or db_pool,
                    telemetry=telemetry,
                    clock=clock or SystemClock(),
                    llm=llm,
                )
            )
            bot = MemoryBot(memory, extensions=extensions, guild_ready_timeout=0.05)
            task = asyncio.create_task(bot.start("fake-token"))

            async def stop() -> None:
                await bot.close()
                await asyncio.wait_for(task, 10)

            stack.push_async_callback(stop)
            ready = asyncio.create_task(bot.wait_until_ready())
            done, _ = await asyncio.wait({ready, task}, timeout=15, return_when="FIRST_COMPLETED")
            if task in done:
                ready.cancel()
                task.result()  # raises the start-up error
            if ready not in done:
                ready.cancel()
                raise TimeoutError("bot did not become ready against the fake Discord")
            return bot

        yield start


async def until_stored(
    bot: MemoryBot, probe: Callable[[], Awaitable[Any]], *, within: float = 5.0
) -> Any:
    """Flush the bot's writer until the async `probe` returns something truthy (returned).

    Cogs hand events to the batched writer, so rows arrive a moment after the gateway event.
    """

    async def flushed_probe() -> Any:
        await bot.memory.writer.flush()
        return await probe()

    try:
        return await eventually(flushed_probe, timeout=within, interval=0.02)
    except TimeoutError:
        raise TimeoutError(f"nothing stored within {within}s") from None


async def settled(bot: MemoryBot, *, within: float = 10.0) -> None:
    """Wait until the bot has finished handling every gateway event it received (no
    discord.py event handler is still running) and its writer is flushed: after this, a reply
    or row that is not there will not come."""

    def handlers_running() -> list[asyncio.Task[object]]:
        return [
            task
            for task in asyncio.all_tasks()
            if task.get_name().startswith("discord.py: ") and not task.done()
        ]

    await eventually(lambda: not handlers_running(), timeout=within)
    await bot.memory.writer.flush()


async def directory_ready(bot: MemoryBot, name: str = "bob", *, count: int = 1) -> None:
    """Wait until the member directory knows `count` members answering to `name`: memory
    commands resolve names from it."""

    async def known() -> bool:
        return len(await find_by_name(wired(bot).pool, GUILD_ID, name)) >= count

    await until_stored(bot, known)
