"""'Bot, what did I miss?' in the console: the conversations since the speaker last wrote,
as on Discord, with the channel named rather than numbered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from bot.console import ConsoleSession
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.wiring import Memory, open_memory
from tests.bot.console_support import console_settings


async def missed_by_bob(memory: Memory, clock: FixedClock, *lines: str) -> str:
    """bob leaves, `lines` are said two minutes apart four hours later, bob is back after
    five more hours and asks what he missed: the answer."""
    session = ConsoleSession(memory, speaker="bob")
    assert await session.handle_line("bob: off to work, talk later") == []
    clock.set(clock.now() + timedelta(hours=4))
    for line in lines:
        clock.set(clock.now() + timedelta(minutes=2))
        await session.handle_line(line)
    clock.set(clock.now() + timedelta(hours=5))
    return "\n".join(await session.handle_line("bob: Bot, what did I miss?"))


async def test_what_did_i_miss_lists_the_conversation_held_while_away(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    clock = FixedClock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=clock
    ) as memory:
        answer = await missed_by_bob(
            memory,
            clock,
            "alice: planning the canoe trip down the river on saturday",
            "carol: the canoe trip needs two boats and dry bags",
            "alice: I can bring the dry bags for the canoe trip",
        )

        assert answer.startswith("Bot: Since you were last here:"), answer
        assert "#console" in answer and "<#" not in answer
        assert "canoe" in answer.lower(), "the conversation bob missed is named"
        assert "off to work" not in answer, "bob's own words are not news to him"


async def test_lines_to_the_bot_are_not_what_a_conversation_was_about(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    clock = FixedClock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=clock
    ) as memory:
        answer = await missed_by_bob(
            memory,
            clock,
            "carol: Bot, what is the capital of Mongolia?",
            "alice: planning the canoe trip down the river on saturday",
            "carol: the canoe trip needs two boats and dry bags",
            "carol: Bot, remember that carol owns two canoes",
        )

        assert "canoe trip" in answer, answer
        assert "Mongolia" not in answer and "remember that" not in answer, answer


async def test_questions_to_the_bot_alone_are_nothing_missed(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    """Issue 37.5: a stretch of questions to the bot (the asker's or anyone's) is not a
    conversation someone missed."""
    clock = FixedClock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=clock
    ) as memory:
        answer = await missed_by_bob(
            memory,
            clock,
            "bob: Bot, what do you know about alice?",
            "alice: Bot, what is the next trip?",
            "bob: Bot, who is bringing the ropes?",
        )

        assert answer == "Bot: Nothing new since you were last here.", answer
