"""Settings: defaults that run offline, one clear line for a bad value or a misspelt name, and
the place data, logs and `.env` live."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memory.core.paths import find_locations, in_container
from memory.core.settings import load_settings
from memory.core.settings_errors import SettingsError


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
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


def _project(directory: Path) -> None:
    (directory / "pyproject.toml").write_text('[project]\nname = "memorybot"\n')


def test_env_file_is_read_in_the_project_directory(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / ".env").write_text("BOT_NAME=Robo\n")
    assert load_settings().bot_name == "Robo"


def test_cli_prints_one_line_not_a_traceback(tmp_path: Path) -> None:
    env = {"RETENTION_DAYS": "-3", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
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


def test_empty_values_from_a_copied_env_example_mean_unset(tmp_path: Path) -> None:
    _project(tmp_path)
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


# --- strict names ---------------------------------------------------------------------------


def test_misspelt_env_file_variable_stops_with_the_closest_name(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / ".env").write_text("BOT_NAME=Robo\nGEMINI_APIKEY=k-123\n")
    with pytest.raises(SettingsError) as raised:
        load_settings()
    message = str(raised.value)
    assert message.startswith("setting GEMINI_APIKEY")
    assert "did you mean GEMINI_API_KEY?" in message
    assert "k-123" not in message


def test_compose_and_clock_variables_are_welcome_in_env_file(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / ".env").write_text("POSTGRES_PASSWORD=secret\nMEMORYBOT_NOW=2026-01-02\n")
    assert load_settings().provider == "offline"


def test_misspelt_environment_variable_with_our_prefix_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LLM_FALBACK", "openai")
    with pytest.raises(SettingsError, match=r"LLM_FALBACK.*did you mean LLM_FALLBACK"):
        load_settings()


def test_foreign_environment_variables_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")  # read by other tools, not close to ours
    monkeypatch.setenv("EDITOR", "vi")
    assert load_settings().provider == "offline"


def test_unknown_fallback_provider_is_named_with_a_suggestion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LLM_FALLBACK", "ollama")
    with pytest.raises(SettingsError) as raised:
        load_settings()
    message = str(raised.value)
    assert message.startswith("setting LLM_FALLBACK: unknown provider 'ollama'")
    assert "did you mean openai?" in message
    assert "Value error" not in message and "pydantic" not in message


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        (
            "LLM_PROVIDER",
            "gemni",
            "setting LLM_PROVIDER: unknown provider 'gemni' (did you mean gemini?)",
        ),
        ("LLM_PURPOSE_CHAINS", "reply=offlin", "setting LLM_PURPOSE_CHAINS: unknown provider"),
        ("RETENTION_DAYS", "soon", "setting RETENTION_DAYS: expected a whole number, got 'soon'"),
    ],
)
def test_errors_read_like_the_product(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert str(raised.value).startswith(expected)
    assert "Value error" not in str(raised.value)


def test_gemini_without_key_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_PROVIDER", "gemini")
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert str(raised.value).startswith("setting LLM_PROVIDER: gemini needs GEMINI_API_KEY")


# --- where data lives -----------------------------------------------------------------------


def test_project_directory_keeps_data_logs_and_env_beside_it(tmp_path: Path) -> None:
    _project(tmp_path)
    settings = load_settings()
    assert settings.data_dir == tmp_path / ".data"
    assert settings.log_dir == tmp_path / "logs"
    assert settings.locations is not None and settings.locations.mode == "project"


def test_other_directories_share_one_per_user_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_home = tmp_path / "xdg-data"
    config_home = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    (config_home / "memorybot").mkdir(parents=True)
    (config_home / "memorybot" / ".env").write_text("BOT_NAME=Robo\nDATA_DIR=.data\n")
    seen = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        settings = load_settings()
        seen.append((settings.data_dir, settings.log_dir, settings.bot_name))
    # A relative DATA_DIR (as copied from .env.example) is taken from the per-user place,
    # never from the directory the command was started in.
    assert (
        seen[0]
        == seen[1]
        == (data_home / "memorybot" / ".data", data_home / "memorybot" / "logs", "Robo")
    )
    assert not (tmp_path / "one" / ".data").exists()
    assert not (data_home / "memorybot").exists()  # loading settings creates nothing


def test_an_existing_data_directory_marks_a_project(tmp_path: Path) -> None:
    (tmp_path / ".data").mkdir()
    assert find_locations(tmp_path, {}).mode == "project"
    assert find_locations(tmp_path / ".data", {"HOME": str(tmp_path)}).mode == "user"


def test_absolute_data_dir_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "elsewhere"))
    assert load_settings().data_dir == tmp_path / "elsewhere"


def test_container_detection() -> None:
    assert in_container({"MEMORYBOT_IN_CONTAINER": "1"})
    assert not in_container({})  # a development container's /.dockerenv is no sign
    assert not in_container({"MEMORYBOT_IN_CONTAINER": "0"})


def test_every_name_in_env_example_passes_the_strict_check() -> None:
    """A copied (and uncommented) .env.example must never stop start-up, nor Compose's own
    `.env` from compose.env.example (the CLI reads `.env` in the project directory too)."""
    from pathlib import Path

    from memory.core.settings import check_names

    root = Path(__file__).parent.parent
    example = (root / ".env.example").read_text() + (root / "compose.env.example").read_text()
    keys = [
        line.lstrip("# ").split("=", 1)[0].strip()
        for line in example.splitlines()
        if "=" in line and line.lstrip("# ").split("=", 1)[0].strip().isupper()
    ]
    assert "POSTGRES_PASSWORD" in keys
    check_names(keys, {}, None)


def test_a_typo_of_our_own_variable_in_the_environment_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORYBOT_NOWW", "2026-01-01")
    with pytest.raises(SettingsError, match="did you mean MEMORYBOT_NOW"):
        load_settings()
    monkeypatch.delenv("MEMORYBOT_NOWW")
    monkeypatch.setenv("MEMORYBOT_IMAGE_TAG", "1.0")  # an image's own variable: not a typo
    assert load_settings().provider == "offline"


@pytest.mark.parametrize(
    ("count", "ids", "expected"),
    [
        ("1", None, "all/1"),
        ("auto", None, "all/auto"),
        ("4", "0-1", "0-1/4"),
        ("8", "5, 0-2 ,2", "0-2,5/8"),
    ],
)
def test_shard_settings_say_which_shards_this_process_owns(
    monkeypatch: pytest.MonkeyPatch, count: str, ids: str | None, expected: str
) -> None:
    shard_env(monkeypatch, count, ids)
    assert load_settings().shards.describe() == expected


@pytest.mark.parametrize(
    ("count", "ids", "message"),
    [
        ("two", None, "SHARD_COUNT: expected a number or 'auto'"),
        ("0", None, "SHARD_COUNT: must be at least 1"),
        ("2", "2", "SHARD_IDS: shard 2 does not exist with SHARD_COUNT=2"),
        ("auto", "0", "SHARD_IDS: needs a fixed SHARD_COUNT"),
        ("4", "3-1", "SHARD_IDS: bad range"),
        ("4", "a,b", "SHARD_IDS: expected e.g. '0,1' or '0-3'"),
    ],
)
def test_bad_shard_settings_stop_start_up_with_one_line(
    monkeypatch: pytest.MonkeyPatch, count: str, ids: str | None, message: str
) -> None:
    shard_env(monkeypatch, count, ids)
    with pytest.raises(SettingsError, match=message):
        load_settings()


def shard_env(monkeypatch: pytest.MonkeyPatch, count: str, ids: str | None) -> None:
    monkeypatch.setenv("SHARD_COUNT", count)
    if ids is None:
        monkeypatch.delenv("SHARD_IDS", raising=False)
    else:
        monkeypatch.setenv("SHARD_IDS", ids)


def test_secrets_come_from_files_when_the_variable_is_unset(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "discord_token").write_text("token-from-a-file\n")
    (secrets / "gemini_api_key").write_text("key-from-a-file")
    monkeypatch.setenv("MEMORYBOT_SECRETS_DIR", str(secrets))
    monkeypatch.setenv("GEMINI_API_KEY", "key-from-the-environment")  # the environment wins
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    settings = load_settings()
    assert settings.discord_token is not None
    assert settings.discord_token.get_secret_value() == "token-from-a-file"
    assert settings.gemini_api_key is not None
    assert settings.gemini_api_key.get_secret_value() == "key-from-the-environment"
