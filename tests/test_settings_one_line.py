"""Every bad setting is one line on stderr, never a traceback: a DATABASE_URL that is not a
PostgreSQL URL, a secret file the process may not read, a line of `.env` that is not a
setting (named by file:line instead of being skipped)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory.core.settings import load_settings
from memory.core.settings_errors import SettingsError

ROOT = Path(__file__).resolve().parents[1]


def _run(
    tmp_path: Path, *, prefix: tuple[str, ...] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "MEMORYBOT_IN_CONTAINER": "0",
    }
    return subprocess.run(
        [*prefix, sys.executable, "-m", "bot", "user", "export", "--guild", "1", "--user", "2"],
        capture_output=True,
        text=True,
        env={**base, **env},
        cwd=tmp_path,
        timeout=60,
    )


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert result.returncode == 2
    return lines[0]


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("notaurl", "not a URL"),
        ("mysql://app:s3cret@db.example:3306/memory", "'mysql' is not PostgreSQL"),
        ("postgresql://app:s3cret@db.example:fivefourthreetwo/memory", "'fivefourthreetwo'"),
    ],
)
def test_a_database_url_that_is_not_postgres_is_one_line(
    tmp_path: Path, url: str, words: str
) -> None:
    line = _one_line(_run(tmp_path, DATABASE_URL=url))
    assert line.startswith("memorybot: setting DATABASE_URL: ") and words in line
    assert "postgresql://USER:PASSWORD@HOST:5432/DBNAME" in line
    assert "s3cret" not in line  # the password is never repeated


def test_good_database_urls_still_load(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    for url in (
        "postgresql://app:pw@db:5432/memory",
        "postgres://app@localhost/memory",
        "postgresql://app:pw@[::1]:5433/memory?sslmode=disable",
        "postgresql://app:pw@h1:5432,h2:5433/memory",
        "postgresql:///memory?host=/run/postgresql",
    ):
        monkeypatch.setenv("DATABASE_URL", url)
        assert load_settings().database_url is not None


def _without_file_override() -> tuple[str, ...] | None:
    """A command prefix under which this process cannot read a mode-000 file: none needed
    unless we are root, who reads anything unless the capability is dropped."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search")


def test_an_unreadable_secret_file_is_one_line_naming_it(tmp_path: Path) -> None:
    prefix = _without_file_override()
    if prefix is None:
        pytest.skip("root without setpriv reads every file")
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    token = secrets / "discord_token"
    token.write_text("abc.def.ghi\n")
    token.chmod(0)
    line = _one_line(_run(tmp_path, prefix=prefix, MEMORYBOT_SECRETS_DIR=str(secrets)))
    assert line.startswith("memorybot: setting DISCORD_TOKEN: cannot read the secret file")
    assert str(token) in line and "Permission denied" in line and "uid" in line


def test_a_secret_file_that_is_not_text_is_one_line(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "gemini_api_key").write_bytes(b"\xff\xfe\x00garbage")
    line = _one_line(_run(tmp_path, MEMORYBOT_SECRETS_DIR=str(secrets)))
    assert line == "memorybot: setting GEMINI_API_KEY: its secret file is not UTF-8 text"


def test_a_garbage_line_in_env_is_named_by_file_and_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "memorybot"\n')
    env_file = tmp_path / ".env"
    env_file.write_text("BOT_NAME=Robo\n# a comment\n\nthis line is a mistake\nLOG_LEVEL=INFO\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert str(raised.value).startswith(f"{env_file}:4: not a setting line")
    assert "mistake" not in str(raised.value)  # the line may hold a secret: not echoed
    line = _one_line(_run(tmp_path))
    assert f"{env_file}:4:" in line


def test_a_url_part_the_driver_refuses_is_one_line_too(tmp_path: Path) -> None:
    result = _run(tmp_path, DATABASE_URL="postgresql://app@db.example/memory?sslmode=bogus")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("memorybot: cannot open the database") and "sslmode" in last
