"""Hints name the CLI as it can be typed again (issue 37.13): `memorybot` is not on PATH after
`make run`, so a hint saying `memorybot ...` was "command not found"."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.cli import program


def test_a_cli_started_from_the_virtualenv_names_its_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    started = tmp_path / ".venv" / "bin" / "memorybot"
    monkeypatch.setattr(sys, "argv", [str(started), "import"])
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    assert program() == str(started)


def test_a_cli_on_path_is_just_memorybot(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    started = folder / "memorybot"
    started.write_text("#!/bin/sh\n")
    started.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(started)])
    monkeypatch.setenv("PATH", str(folder))
    assert program() == "memorybot"
    monkeypatch.setattr(sys, "argv", ["/x/bot/__main__.py"])
    assert program() == "python -m bot"
