"""A console session with `LLM_PROVIDER=openai` and nothing listening: the commands and the
reply are answered by the offline fallback, and the dead endpoint is tried once in all (the
breaker opens on the refused connection; nothing after it retries or tries again)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from bot.console import ConsoleSession
from memory.core.clock import SystemClock
from memory.core.telemetry import Telemetry
from memory.ports import breaker_report
from memory.wiring import open_memory
from tests.bot.console_support import console_settings
from tests.dead_endpoint import ConnectionCount


async def test_a_dead_endpoint_is_tried_once_and_the_console_still_answers(
    db_pool: asyncpg.Pool,
    database_dsn: str,
    tmp_path: Path,
    dead_url: str,
    connections: ConnectionCount,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = console_settings(
        tmp_path,
        llm_provider="openai",
        openai_base_url=dead_url,
        gemini_api_key=None,
        # However slow this machine is, the test ends before the breaker half-opens.
        llm_breaker_backoff_seconds=3600,
    )
    telemetry = Telemetry()
    async with open_memory(
        settings, pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory, speaker="bob")
        assert await session.handle_line("alice: hi everyone, I'm back from Lisbon!") == []
        said = await session.handle_line("Bot, remember that alice loves climbing")
        assert said and "remember" in said[0].lower()
        assert len(connections) == 1
        answer = await session.handle_line("Bot what do you know about alice?")
        assert any("climbing" in line for line in answer)
        chat = await session.handle_line("Bot, how is alice doing?")
        assert chat and chat[0].startswith("Bot: ")
    assert len(connections) == 1  # the second command and the reply did not try it again
    [opened] = telemetry.recent("breaker")
    assert (opened["state"], opened["provider"], opened["model"]) == ("open", "openai", "llama3.1")
    skipped = [e for e in telemetry.recent("llm_call") if e["outcome"] == "skipped"]
    assert skipped and {e["provider"] for e in skipped} == {"openai"}
    assert "openai:llama3.1 open" in breaker_report(tmp_path / "logs")

    # `memorybot health` (another process, the container's HEALTHCHECK) says so, and stays 0.
    monkeypatch.setenv("DATABASE_URL", database_dsn)
    monkeypatch.setenv("LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["health"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("healthy: database ok")
    assert "; llm circuit breaker: openai:llama3.1 open for " in line
    assert "LLMUnreachable" in line
