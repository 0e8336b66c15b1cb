"""Settings: defaults that run offline, and one clear line for a bad value."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memory.core.settings import SettingsError, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in ("GEMINI_API_KEY", "LLM_PROVIDER", "RETENTION_DAYS", "DEFAULT_TIMEZONE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


def test_defaults_choose_offline_provider() -> None:
    settings = load_settings()
    assert settings.provider == "offline"
    assert settings.bot_name == "Bot"
    assert settings.retention_days == 30


def test_gemini_key_makes_gemini_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k-123")
    settings = load_settings()
    assert settings.provider == "gemini"
    assert settings.fallback_chain == ["gemini", "offline"]
    assert "k-123" not in repr(settings)


def test_malformed_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETENTION_DAYS", "soon")
    with pytest.raises(SettingsError, match="RETENTION_DAYS"):
        load_settings()


def test_unknown_timezone_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEFAULT_TIMEZONE", "Mars/Olympus")
    with pytest.raises(SettingsError, match="DEFAULT_TIMEZONE"):
        load_settings()


def test_gemini_without_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_PROVIDER", "gemini")
    with pytest.raises(SettingsError, match="GEMINI_API_KEY"):
        load_settings()


def test_env_file_is_read(tmp_path) -> None:
    (tmp_path / ".env").write_text("BOT_NAME=Robo\n")
    assert load_settings().bot_name == "Robo"


def test_cli_prints_one_line_not_a_traceback(tmp_path) -> None:
    env = {"RETENTION_DAYS": "-3", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "migrate"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "RETENTION_DAYS" in lines[0]


def test_env_example_documents_every_setting() -> None:
    from pathlib import Path

    from memory.core.settings import Settings

    example = (Path(__file__).parent.parent / ".env.example").read_text()
    documented = {
        line.lstrip("# ").split("=", 1)[0].strip()
        for line in example.splitlines()
        if "=" in line and line.lstrip("# ").split("=", 1)[0].strip().isupper()
    }
    missing = {name.upper() for name in Settings.model_fields} - documented
    assert not missing, f".env.example lacks {sorted(missing)}"


def test_empty_values_from_a_copied_env_example_mean_unset(tmp_path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=\nGEMINI_API_KEY=\n")
    settings = load_settings()
    assert settings.discord_token is None
    assert settings.provider == "offline"


def test_readme_documents_every_setting() -> None:
    from pathlib import Path

    from memory.core.settings import Settings

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    missing = [name.upper() for name in Settings.model_fields if f"`{name.upper()}`" not in readme]
    assert not missing, f"README configuration table lacks {missing}"
