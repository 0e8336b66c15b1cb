"""The offline console, driven non-interactively: remember, ask, get the fact back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from bot.console import ConsoleSession
from memory.core.clock import SystemClock
from memory.core.telemetry import Telemetry
from memory.wiring import open_memory
from tests.bot.console_support import console_settings

ROOT = Path(__file__).resolve().parents[2]


async def test_console_session_remembers_and_answers(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory, speaker="bob")
        assert await session.handle_line("alice: hi everyone, I'm back from Lisbon!") == []
        said = await session.handle_line("Bot, remember that alice loves climbing")
        assert said and "remember" in said[0].lower()
        answer = await session.handle_line("Bot what do you know about alice?")
        assert any("climbing" in line for line in answer)
        assert await session.handle_line("/as carol") == ["(you are now carol)"]
        chat = await session.handle_line("Bot, how is alice doing?")
        assert chat and chat[0].startswith("Bot: ")
        shown = "\n".join(await session.handle_line("/memory alice"))
        assert "climbing" in shown and "alice" in shown
        # In words, not cache jargon.
        assert shown.startswith("What Bot remembers about alice")
        assert "facts members asked it to remember" in shown
        assert "cache" not in shown.lower() and "context_store" not in shown
        assert await session.handle_line("/quit") == ["bye"]
        assert session.finished


def test_console_from_a_stdin_script_with_the_embedded_database(server_tmp_path: Path) -> None:
    tmp_path = server_tmp_path
    script = "\n".join(
        [
            "alice: morning all",
            "bob: Bot, remember that alice plays the violin",
            "bob: Bot, what do you know about alice?",
            "/whois alice",
            "/memory alice",
            "bob: Bot, remember that alice " + "likes tea " * 300,  # too long
            "/as dave",
            "/optout",
            "/quit",
        ]
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DATA_DIR": str(tmp_path / "data"),
        "LOG_DIR": str(tmp_path / "logs"),
        "TELEMETRY_STDOUT": "false",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "MEMORYBOT_IN_CONTAINER": "0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot", "console"],
        input=script,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    answers = [line for line in result.stdout.splitlines() if line.startswith("Bot: ")]
    assert len(answers) == 4, result.stdout
    assert "violin" in answers[1] and "violin" in answers[2]
    assert "Traceback" not in result.stderr
    # Issue 37.9: once the console is open, log lines go to a file, not between the answers.
    after = result.stderr.split("(log lines go to ", 1)[1].splitlines()[1:]
    assert not [line for line in after if " WARNING " in line or " INFO " in line], after
    assert (tmp_path / "logs" / "console.log").read_text(encoding="utf-8")
    # Piped lines are echoed, so the transcript reads as a conversation.
    lines = result.stdout.splitlines()
    said = lines.index("guest> bob: Bot, remember that alice plays the violin")
    assert lines[said + 1].startswith("Bot: ")
    assert "guest> /whois alice" in lines
    assert "offline: not connected to Discord" in result.stdout
    assert "What Bot remembers about alice" in result.stdout


@pytest.mark.parametrize("line", ["/nope", "/remember", "/summarize 2026-13-40"])
async def test_console_explains_bad_commands(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path, line: str
) -> None:
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory)
        output = await session.handle_line(line)
        assert output and ("unknown" in output[0] or "usage" in output[0] or "date" in output[0])


async def test_console_refuses_to_summarise_a_future_day(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    """Issue 37.8: not "summarised 0 messages" for a day nothing can be said about."""
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory)
        await session.handle_line("hello there")
        [said] = await session.handle_line("/summarize 2099-01-01")
        assert "in the future" in said and "summarised" not in said
        [said] = await session.handle_line("/summarize 1999-01-01")
        assert "before anything stored" in said


async def test_console_speaks_in_an_imported_server_with_its_members(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    from bot.console import ConsoleSession
    from tests.memory.export_samples import GUILD_ID, export, sample_messages, write

    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        await memory.imports.importer(include_bots=False).import_file(
            write(tmp_path / "general.json", export(sample_messages()))
        )
        guild = await memory.privacy.guild("Café ☕")  # by name, as `console --guild` does
        assert guild == GUILD_ID
        session = ConsoleSession(memory, guild_id=guild)
        assert await session.handle_line("/as bob") == ["(you are now bob)"]
        assert session.speaker.user_id == 700000000000000012  # the imported bob, not a new one
        said = await session.handle_line("Bot, remember that alice plays the cello")
        assert said and "remember" in said[0].lower()
        alice = await memory.facts.blob(guild, 700000000000000011)
        assert "cello" in alice  # alice of the imported server, found by her name there


async def test_console_replies_reach_its_channel_and_public_channels_only(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    from datetime import UTC, datetime, timedelta

    from db.members import upsert_members
    from db.messages import insert_messages
    from memory.core.models import ChatMessage, Member
    from memory.llm import MemoryLLM
    from tests.fakes import RecordingProvider

    guild, alice, staff, lobby = 4444, 301, 77, 78
    then = datetime.now(UTC) - timedelta(days=3)
    await upsert_members(db_pool, [Member(guild, alice, username="alice")])
    await insert_messages(
        db_pool,
        [
            ChatMessage(6001, guild, staff, alice, "staff only: the bakery closes in March", then),
            ChatMessage(6002, guild, lobby, alice, "the bakery sells rye bread now", then),
        ],
    )
    provider = RecordingProvider()
    async with open_memory(
        console_settings(tmp_path),
        pool=db_pool,
        telemetry=telemetry,
        clock=SystemClock(),
        llm=MemoryLLM(provider),
    ) as memory:
        await memory.visibility.mark(guild, staff, public=False)
        session = ConsoleSession(memory, speaker="bob", guild_id=guild)
        assert await session.handle_line("Bot, what did alice say about the bakery earlier?")
    prompt = provider.reply_prompts[-1]
    assert "rye bread" in prompt, "a public channel's words are recalled"
    assert "closes in March" not in prompt, "a restricted channel's are not"
