"""What an admin sees when memorybot starts or cannot: the banner, one-line database errors
blamed on the database, the container guard, `--version` and `memorybot health`."""

from __future__ import annotations

import base64
import logging
import os
import time
from pathlib import Path

import asyncpg
import pytest

from bot.banner import client_id_from_token, guild_lines, invite_url, startup_lines
from bot.cli import main
from bot.client import run_bot
from bot.heartbeat import heartbeat_path, write_heartbeat
from memory.core.settings import Settings, load_settings

APP_ID = 123456789012345678
TOKEN = base64.b64encode(str(APP_ID).encode()).decode().rstrip("=") + ".GhIjKl.secret-part"
# Port 9 of loopback: nothing listens, the connection is refused at once.
DEAD_URL = "postgresql://memorybot:hunter2@127.0.0.1:9/memorybot"


def _chain(purpose: str) -> list[str]:
    return ["gemini", "offline"] if purpose != "route" else ["offline"]


def _model(provider: str, purpose: str) -> str:
    return {"gemini": "gemini-2.5-flash" if purpose == "daily_summary" else "flash-lite"}.get(
        provider, ""
    )


def test_banner_names_providers_models_database_and_never_secrets() -> None:
    settings = Settings(
        _env_file=None,
        discord_token=TOKEN,
        database_url=DEAD_URL,
        gemini_api_key="AIza-very-secret",
    )
    text = "\n".join(startup_lines(settings, version="9.9", chain_for=_chain, model_for=_model))
    assert text.startswith("memorybot 9.9")
    assert "LLM daily_summary: gemini (gemini-2.5-flash) -> offline" in text
    assert "LLM route: offline" in text
    assert "merge" in text and "reply" in text  # every purpose is named
    assert "database: PostgreSQL at 127.0.0.1:9/memorybot" in text
    for secret in ("hunter2", "AIza-very-secret", "secret-part", TOKEN):
        assert secret not in text


def test_banner_names_the_embedded_data_directory(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "d")
    lines = startup_lines(settings, version="1", chain_for=lambda p: ["offline"], model_for=_model)
    assert f"  database: embedded PostgreSQL in {tmp_path / 'd'}" in lines
    assert any("offline provider" in line for line in lines)


def test_guilds_are_listed_by_name() -> None:
    lines = guild_lines("Bot#1", ["Zeta", "Alpha"], token=TOKEN, application_id=None)
    assert lines == ["connected as Bot#1 to 2 guilds: Alpha, Zeta"]


def test_no_guild_gives_an_invite_link_from_the_token() -> None:
    assert client_id_from_token(TOKEN) == APP_ID
    assert client_id_from_token("garbage") is None
    text = "\n".join(guild_lines("Bot#1", [], token=TOKEN, application_id=None))
    assert "in no guild yet" in text
    assert invite_url(APP_ID) in text
    assert f"client_id={APP_ID}" in text
    assert "scope=bot+applications.commands" in text
    assert "permissions=68608" in text  # View Channels, Send Messages, Read Message History
    assert "secret-part" not in text


# --- one-line errors ---------------------------------------------------------------------


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory that is not the project (per-user places are the test's tmp)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOG_DIR", str(tmp_path / "logs"))
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [["migrate"], ["memory", "show", "--guild", "1", "--user", "2"], ["retention", "run"]],
)
def test_unreachable_database_is_one_line_for_every_command(
    elsewhere: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", DEAD_URL)
    assert main(argv) == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "127.0.0.1:9" in lines[0] and "connection refused" in lines[0]
    assert "check DATABASE_URL" in lines[0]
    assert "hunter2" not in err and "Traceback" not in err


def test_verbose_shows_the_traceback(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", DEAD_URL)
    assert main(["--verbose", "migrate"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "ConnectionRefusedError" in err
    assert err.rstrip().splitlines()[-1].startswith("memorybot: cannot open the database")


def test_run_blames_the_database_not_discord(
    elsewhere: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(
        _env_file=None,
        discord_token=TOKEN,
        database_url=DEAD_URL,
        log_dir=elsewhere / "logs",
        telemetry_stdout=False,
    )
    with caplog.at_level(logging.ERROR, logger="bot.client"):
        assert run_bot(settings) == 1
    errors = [record.getMessage() for record in caplog.records if record.name == "bot.client"]
    assert len(errors) == 1
    assert errors[0].startswith("cannot open the database (PostgreSQL at 127.0.0.1:9")
    assert "Discord" not in errors[0]


def test_read_only_command_never_creates_an_empty_database(
    elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "show", "--guild", "1", "--user", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("memorybot: no database in ") and "yet" in err
    settings = load_settings()
    assert not settings.data_dir.exists()


def test_container_refuses_to_start_without_database_url(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MEMORYBOT_IN_CONTAINER", "1")
    assert main(["migrate"]) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "container without DATABASE_URL" in lines[0]
    assert not load_settings().data_dir.exists()


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("memorybot ")


# --- health --------------------------------------------------------------------------------


async def _health(*argv: str) -> tuple[int, str]:
    from bot.cli import build_parser

    args = build_parser().parse_args(["health", *argv])
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = await args.handler(args, load_settings())
    return code, out.getvalue()


async def test_health_is_ok_when_the_database_answers(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, database_dsn: str
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_dsn)
    code, out = await _health()
    assert code == 0 and out.startswith("healthy: database ok") and "no bot" in out
    assert len(out.splitlines()) == 1
    code, out = await _health("--require-bot")
    assert code == 1 and "no bot heartbeat" in out


async def test_health_says_which_formats_a_model_server_was_negotiated_down_to(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, database_dsn: str, db_pool: asyncpg.Pool
) -> None:
    """A format refusal is remembered in the database (issue 33); health says it, stays 0."""
    from memory.llm.providers import Capabilities, DatabaseCapabilities

    monkeypatch.setenv("DATABASE_URL", database_dsn)
    await DatabaseCapabilities(db_pool).save(
        "http://127.0.0.1:8080/v1", "smollm2", Capabilities("json_object_schema", False), "500"
    )
    code, out = await _health()
    assert code == 0 and len(out.splitlines()) == 1
    said = "llm formats negotiated: smollm2 at http://127.0.0.1:8080/v1: structured output as"
    assert f"{said} json_object_schema, no tools" in out


async def test_health_checks_the_bot_heartbeat_age(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, database_dsn: str
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_dsn)
    log_dir = elsewhere / "logs"
    write_heartbeat(log_dir, guilds=1)
    code, out = await _health()
    assert code == 0 and "bot heartbeat" in out
    stale = time.time() - 600
    os.utime(heartbeat_path(log_dir), (stale, stale))
    code, out = await _health()
    assert code == 1 and out.startswith("unhealthy") and "limit 180s" in out


async def test_health_fails_in_one_line_when_the_database_does_not_answer(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", DEAD_URL)
    code, out = await _health()
    assert code == 1 and out.startswith("unhealthy: cannot open the database")
    assert len(out.splitlines()) == 1 and "hunter2" not in out


async def test_health_in_a_container_without_database_url_is_unhealthy_not_an_error(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORYBOT_IN_CONTAINER", "1")
    code, out = await _health()
    assert code == 1 and out.startswith("unhealthy: running in a container without DATABASE_URL")
