"""Fixtures of the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, database_dsn: str, tmp_path: Path) -> Path:
    """Point the CLI at the test database, the offline model and a private directory (logs,
    working directory), with no clock override or API key leaking in from the environment."""
    monkeypatch.setenv("DATABASE_URL", database_dsn)
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    monkeypatch.setenv("LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("TELEMETRY_STDOUT", "true")  # the CLI must still keep stdout clean
    monkeypatch.delenv("MEMORYBOT_NOW", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path
