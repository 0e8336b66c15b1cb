"""The console sends log lines to logs/console.log while it is open, and leaves logging as it
found it when it closes: a program that ran it in its own process (a test run, a script) keeps
its handlers and their levels, and no handler is left writing to the closed console's file."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest

from bot.cli import main


async def test_the_console_leaves_logging_as_it_found_it(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = logging.getLogger()
    before = [(handler, handler.level) for handler in root.handlers]
    script = cli_env / "script.txt"
    script.write_text("alice: the kettle is on\n/quit\n", encoding="utf-8")
    with script.open(encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        assert await asyncio.to_thread(main, ["console"]) == 0
    assert (cli_env / "logs" / "console.log").exists()
    assert [(handler, handler.level) for handler in root.handlers] == before
    logging.getLogger("after.the.console").warning("a warning after the console closed")
    assert "a warning after the console closed" in caplog.text
