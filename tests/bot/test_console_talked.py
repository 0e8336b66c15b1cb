"""'Bot, what did we talk about on Tuesday?' in the offline console: that day's conversations,
not a canned line, and only that day's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from bot.console import ConsoleSession
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory
from tests.bot.console_support import console_settings


async def test_what_did_we_talk_about_on_a_day_answers_with_that_days_conversation(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    tuesday = datetime(2026, 5, 5, 18, 0, tzinfo=UTC)
    clock = FixedClock(tuesday)
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=clock
    ) as memory:
        session = ConsoleSession(memory, speaker="bob")
        for line in (
            "alice: who is coming to the ridge walk on saturday?",
            "carol: count me in for the ridge walk, I'll bring the thermos",
            "bob: the ridge walk sounds great, I'll drive",
        ):
            clock.set(clock.now() + timedelta(minutes=3))
            assert await session.handle_line(line) == []
        clock.set(tuesday + timedelta(days=1))  # Wednesday: another conversation
        for line in (
            "alice: my sourdough starter finally bubbled over",
            "carol: sourdough takes patience, mine died twice",
        ):
            clock.set(clock.now() + timedelta(minutes=3))
            assert await session.handle_line(line) == []
        clock.set(tuesday + timedelta(days=3))

        answer = "\n".join(await session.handle_line("Bot, what did we talk about on Tuesday?"))

        assert answer.startswith("Bot: Here is what was talked about:"), answer
        assert "ridge walk" in answer and "2026-05-05" in answer
        assert "sourdough" not in answer, "only the day asked about"
        assert "offline mode" not in answer
