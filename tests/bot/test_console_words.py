"""The console's words for people: its own commands in its hints, a plain answer for an
unknown name, one line for a member who opted out, counts that read as English."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncpg

from bot.console import ConsoleSession
from memory.core.clock import SystemClock
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory
from tests.bot.console_support import console_settings

ROOT = Path(__file__).resolve().parents[2]


def _read_export(path: Path) -> tuple[dict[str, Any], int]:
    return json.loads(path.read_text(encoding="utf-8")), path.stat().st_mode


async def test_console_words(db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path) -> None:
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory, speaker="frank")
        await session.handle_line("frank: I grow tomatoes on my balcony")

        mine = "\n".join(await session.handle_line("/mine"))
        assert "/optout" in mine and "/memory optout" not in mine  # the console's own command
        # Issue 37.4: the console has no attachments: the document is written, and said where.
        assert "attached" not in mine
        path = Path(mine.split("Everything, as JSON, is in ", 1)[1].split(" (", 1)[0])
        exported, mode = _read_export(path)
        assert any("tomatoes" in row["content"] for row in exported["messages"])
        assert mode & 0o077 == 0  # only its owner reads it

        assert await session.handle_line("/memory nobody") == [
            "no member named nobody (/as NAME speaks as a new one)"
        ]
        shown = "\n".join(await session.handle_line("/memory frank"))
        assert shown.startswith("What Bot remembers about frank")

        summary = (await session.handle_line("/summarize"))[0]
        assert "(s)" not in summary and "1 messages" not in summary and "1 LLM calls" not in summary
        assert " 1 message," in summary, summary

        assert (await session.handle_line("/optout"))[0].startswith("(done: nothing about frank")
        said = await session.handle_line("Bot, how are you today?")
        assert said == [
            "Bot: You opted out here, so I don't remember you or answer from memory; /optin "
            "lets me remember you again."
        ]
        assert await session.handle_line("/optin") == ["(done: frank is remembered from now on)"]
        again = await session.handle_line("Bot, how are you today?")
        assert again and "opted out" not in again[0]

        help_text = "\n".join(await session.handle_line("/help"))
        assert "Manage Server" in help_text and "Ctrl-D" in help_text


def test_console_prints_the_start_up_banner(server_tmp_path: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DATA_DIR": str(server_tmp_path / "data"),
        "LOG_DIR": str(server_tmp_path / "logs"),
        "TELEMETRY_STDOUT": "false",
        "PYTHONPATH": str(ROOT),
        "HOME": str(server_tmp_path),
        "MEMORYBOT_IN_CONTAINER": "0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot", "console"],
        input="/quit\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=server_tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "memorybot " in result.stderr  # the version line
    assert "LLM reply" in result.stderr or "LLM " in result.stderr
    assert "offline" in result.stderr and "database: embedded PostgreSQL" in result.stderr
