"""Issue 42.14: starting prints what an admin needs, not warnings about what they need not fix:
no setuptools "Editable installation" box from the install `make run` does, no discord.py
"davey is not installed" (voice, which the bot does not use) from `memorybot run`."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# `memorybot run` with a token, against a Discord that refuses the connection at once.
RUN = (
    "import sys, discord; discord.http.Route.BASE = 'http://127.0.0.1:9/api/v10'; "
    "from bot.cli import main; sys.exit(main(['run']))"
)


def test_run_does_not_warn_about_voice_libraries(database_dsn: str, tmp_path: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DISCORD_TOKEN": "not-a-real-token",
        "DATABASE_URL": database_dsn,
        "LOG_DIR": str(tmp_path / "logs"),
        "LLM_PROVIDER": "offline",
        "TELEMETRY_STDOUT": "false",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "MEMORYBOT_IN_CONTAINER": "0",
    }
    result = subprocess.run(
        [sys.executable, "-c", RUN],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    said = result.stdout + result.stderr
    assert result.returncode == 1 and "cannot reach Discord" in said, said[-2000:]
    assert "davey" not in said and "PyNaCl" not in said, said[-2000:]


def test_the_make_run_install_prints_no_editable_installation_box() -> None:
    """The Makefile's own install command (dependencies already there: --no-deps)."""
    planned = subprocess.run(
        ["make", "-n", "-B", ".venv/.installed"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    [install] = [line for line in planned.splitlines() if " -e " in line]
    result = subprocess.run(
        install + " --no-deps",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Editable installation" not in result.stdout + result.stderr, shlex.quote(install)
