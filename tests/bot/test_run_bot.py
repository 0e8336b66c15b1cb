"""`memorybot run` when Discord cannot be reached: one clear error line and exit code 1."""

from __future__ import annotations

import logging
import signal
from pathlib import Path

import discord
import pytest

from bot.client import run_bot
from memory.core.settings import Settings


def test_unreachable_discord_is_one_clear_error(
    server_tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Nothing listens on port 9 of loopback: the connection is refused at once.
    monkeypatch.setattr(discord.http.Route, "BASE", "http://127.0.0.1:9/api/v10")
    settings = Settings(
        _env_file=None,
        discord_token="not-a-real-token",
        data_dir=server_tmp_path,
        log_dir=server_tmp_path / "logs",
        telemetry_stdout=False,
    )
    # run_bot owns the process's SIGTERM/SIGINT (and ignores them once done): give them back
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        with caplog.at_level(logging.ERROR, logger="bot.client"):
            assert run_bot(settings) == 1
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    errors = [record.getMessage() for record in caplog.records if record.name == "bot.client"]
    assert len(errors) == 1 and errors[0].startswith("cannot reach Discord")
