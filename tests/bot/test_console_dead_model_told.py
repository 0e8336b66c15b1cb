"""Issue 42.9: a dead model server is told to the console user once, not only written to
logs/console.log; and once the process that saw it has exited, its breaker is not reported as
current by `memorybot health` or the dashboard."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.dashboard.conftest import client

ROOT = Path(__file__).resolve().parents[2]


def _console(tmp_path: Path, database_dsn: str, dead_url: str, lines: list[str]) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DATABASE_URL": database_dsn,
        "LOG_DIR": str(tmp_path / "logs"),
        "LLM_PROVIDER": "openai",
        "OPENAI_BASE_URL": dead_url,
        "TELEMETRY_STDOUT": "false",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "MEMORYBOT_IN_CONTAINER": "0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot", "console"],
        input="\n".join([*lines, "/quit"]) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


async def test_a_dead_model_is_told_once_and_forgotten_when_its_process_exits(
    cli_env: Path,
    database_dsn: str,
    dead_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = [
        "alice: hi everyone, back from Lisbon",
        "bob: Bot, remember that alice loves climbing",
        "bob: Bot what do you know about alice?",
        "bob: Bot, how is alice doing?",
    ]
    out = await asyncio.to_thread(_console, cli_env, database_dsn, dead_url, lines)
    told = [line for line in out.splitlines() if "is not answering" in line]
    assert len(told) == 1, out
    assert "openai:" in told[0] and "offline" in told[0] and "console.log" in told[0]
    assert out.index(told[0]) < out.index("> bob: Bot what do you know about alice")  # at once

    # The console has exited: the breaker it wrote down is history, not the present.
    state = json.loads((cli_env / "logs" / "llm-breakers.json").read_text(encoding="utf-8"))
    assert state["breakers"], "the exited process did record an open breaker"
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["health"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("healthy: database ok") and "breaker" not in line, line
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        overview = await (await http.get("/")).text()
    assert "all closed" in overview and "LLMUnreachable" not in overview
