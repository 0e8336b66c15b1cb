"""Issue 37.3 through the console: "Bot who is bringing the ropes on Saturday?" quotes each
recalled line once (a match is not shown again as another match's context), every quoted line
says who said it, where and on which day (and at what time when the prompt gave the line its
own: a line of a match's exchange carries none since issue 43)."""

from __future__ import annotations

import re
from pathlib import Path

import asyncpg

from bot.console import ConsoleSession
from memory.core.clock import SystemClock
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory
from tests.bot.console_support import console_settings


async def test_a_recalled_line_is_quoted_once_and_labelled(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory, speaker="alice")
        for line in (
            "alice: climbing on Saturday?",
            "bob: yes, I'll bring the ropes",
            "carol: cool",
        ):
            assert await session.handle_line(line) == []
        answer = await session.handle_line("Bot who is bringing the ropes on Saturday?")
    text = "\n".join(answer)
    assert text.count("I'll bring the ropes") == 1, text
    quoted = [line for line in text.splitlines() if '"' in line]
    assert quoted
    for line in quoted:  # who, where, when: "On Sat 28 November 2026 at 14:05 bob said in #console"
        assert re.search(r"On \w{3} \d{1,2} \w+ \d{4}( at \d\d:\d\d)? \w+ said in #\w+", line), line
