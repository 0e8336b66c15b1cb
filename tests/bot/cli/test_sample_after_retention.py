"""Issue 42.7: the README's quick start, as written, after the first retention run. The sample
history is months old, so the default RETENTION_DAYS deletes its messages: the quick start says
so and how to keep them, and the console's answer from what stays (the days' summaries) quotes
each speaker once, not `Carol said: "Carol said: ..."`."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "docs" / "sample-export"


def test_the_quick_start_says_retention_deletes_the_sample_history() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## The first ten minutes") : readme.index("## Contents")]
    assert "RETENTION_DAYS=30" in quick and "RETENTION_DAYS=400" in quick
    assert "deletes them" in quick and "memorybot worker" in quick


async def test_the_next_trip_after_retention_is_quoted_once(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RETENTION_DAYS", raising=False)  # the default, as a new admin has it
    assert await asyncio.to_thread(main, ["import", str(SAMPLE), "--no-progress"]) == 0
    assert await asyncio.to_thread(main, ["retention", "run"]) == 0
    assert "deleted 10 messages" in capsys.readouterr().out
    script = cli_env / "script.txt"
    script.write_text("Bot what is the next trip?\n/quit\n", encoding="utf-8")
    with script.open(encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        argv = ["console", "--guild", "Sample Hikers", "--as", "alice"]
        assert await asyncio.to_thread(main, argv) == 0
    [answer] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Bot: ")]
    assert "lighthouse loop" in answer, answer
    assert answer.count("said") == 1, answer
    assert 'Carol said: "next trip: the lighthouse loop' in answer
