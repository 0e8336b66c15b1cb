"""Facts that go when asked and show when learned (issue 27, item 5), through the console on a
real PostgreSQL with the offline provider: an alias forgotten by its member is gone from the
directory and the facts; a fact learned from chat in the running session is in "who am I",
`/memory` (labelled as learned) and `/mine` (counted) without a restart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from bot.console import ConsoleSession
from db.members import find_by_name
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory
from tests.bot.console_support import console_settings

MORNING = datetime(2026, 11, 12, 10, 5, tzinfo=UTC)


async def test_forgetting_an_alias_removes_it_everywhere(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=FixedClock(MORNING)
    ) as memory:
        session = ConsoleSession(memory, speaker="alice")
        await session.handle_line("Bot remember that I play the cello")
        said = await session.handle_line("Bot remember that alice is Sergey")
        assert "Sergey" in said[0]
        guild = session.guild_id
        assert [m.username for m in await find_by_name(db_pool, guild, "Sergey")] == ["alice"]

        answer = await session.handle_line("Bot forget that alice is Sergey")

        assert answer == ["Bot: Done, I've forgotten that about alice."]
        assert await find_by_name(db_pool, guild, "Sergey") == []
        alice = (await find_by_name(db_pool, guild, "alice"))[0]
        assert alice.aliases == ()
        whois = " ".join(await session.handle_line("Bot who am I?"))
        assert "cello" in whois and "Sergey" not in whois
        export = await memory.privacy.export(await memory.privacy.subject(guild, "alice"))
        assert "Sergey" not in str(export["facts"]) and "Sergey" not in str(export["member"])


async def test_a_fact_learned_in_the_running_session_shows_at_once(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    clock = FixedClock(MORNING)
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=clock
    ) as memory:
        session = ConsoleSession(memory, speaker="alice")
        await session.handle_line("Bot remember that I play the cello")
        await session.handle_line("Bot who am I?")  # built and kept warm for the hour
        clock.advance(timedelta(minutes=5))
        assert await session.handle_line("I moved to Lisbon last month") == []

        clock.advance(timedelta(hours=1, minutes=20))  # the next hour reads what was said
        whois = " ".join(await session.handle_line("Bot who am I?"))
        shown = "\n".join(await session.handle_line("/memory alice"))
        mine = "\n".join(await session.handle_line("/mine"))

        assert "Lisbon" in whois
        assert "facts it learned from what they said in chat: " in shown
        assert "learned" not in shown.split("facts members asked it to remember")[1].split("\n")[0]
        assert "Facts I learned from chat about you: 1 (Alice lives in Lisbon)" in mine
