"""Caches that hear other processes: two memories (separate pools and caches, one database)
stand for two processes; a purge in one is seen by the other's next request within 2 s."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from db.pool import create_pool
from memory import open_memory
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from tests.support import eventually

G, ALICE = 950, 95
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)


async def test_a_purge_in_one_process_reaches_the_others_cache(
    db_pool, database_dsn, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")  # type: ignore[call-arg]
    other_pool = await create_pool(database_dsn)
    clock = FixedClock(NOW)
    try:
        async with (
            open_memory(settings, clock=clock, pool=db_pool, telemetry=Telemetry()) as bot,
            open_memory(settings, clock=clock, pool=other_pool, telemetry=Telemetry()) as cli,
        ):
            await eventually(lambda: bot.caches.listener.connected.is_set())
            alice = Member(G, ALICE, username="alice")
            await bot.commands.remember(G, alice, alice, "I play the cello")
            assert "cello" in (await bot.manager.get_memories(G, ALICE, budget=5) or "")
            assert bot.manager._warm.get(G, ALICE) is not None  # warm: served from memory

            subject = await cli.privacy.subject(G, str(ALICE))  # the command line, elsewhere
            await cli.privacy.purge(subject)

            # The bot's warm entry goes within 2 s, so its next request sees the purge.
            await eventually(lambda: bot.manager._warm.get(G, ALICE) is None, timeout=2)
            assert await bot.manager.get_memories(G, ALICE, budget=5) is None
    finally:
        await other_pool.close()


async def test_a_lost_listening_connection_reconnects_and_drops_warm_contexts(
    db_pool, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")  # type: ignore[call-arg]
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as bot:
        listener = bot.caches.listener
        await eventually(lambda: listener.connected.is_set())
        alice = Member(G, ALICE, username="alice")
        await bot.commands.remember(G, alice, alice, "I play the cello")
        await bot.manager.get_memories(G, ALICE, budget=5)
        assert bot.manager._warm.get(G, ALICE) is not None
        first = listener.server_pid
        await db_pool.execute("SELECT pg_terminate_backend($1)", first)
        await eventually(lambda: listener.reconnects == 1 and listener.connected.is_set())
        assert listener.server_pid != first
        assert bot.manager._warm.get(G, ALICE) is None  # events may have been missed
