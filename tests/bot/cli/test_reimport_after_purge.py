"""Issue 42.7: a re-import after a purge brings the days' memory back with the messages. The
purge deleted the member's notes of days whose stretches had been read; the re-imported
messages are the same ones, so those stretches looked read already and the days closed with
nothing from them ("every day that is over was closed already")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.cli import main

SAMPLE = Path(__file__).resolve().parents[3] / "docs" / "sample-export"
SHOW = ["memory", "show", "--guild", "Sample Hikers", "--user", "carol", "--now", "2026-05-14"]


async def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert await asyncio.to_thread(main, list(argv)) == 0
    return capsys.readouterr().out


async def test_a_reimport_after_a_purge_rebuilds_the_days_memory(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RETENTION_DAYS", "400")
    await _cli(capsys, "import", str(SAMPLE), "--no-progress")
    before = await _cli(capsys, *SHOW)
    assert "lighthouse loop" in before, before
    purged = await _cli(
        capsys, "user", "purge", "--guild", "Sample Hikers", "--user", "carol", "--yes"
    )
    assert "purged Carol" in purged
    again = await _cli(capsys, "import", str(SAMPLE), "--no-progress")
    assert "closed already" not in again, again
    after = await _cli(capsys, *SHOW)
    assert "lighthouse loop" in after, after
