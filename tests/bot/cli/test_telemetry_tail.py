"""`memorybot telemetry tail` for a human: names instead of ids, filters by name and outcome,
colour on a terminal and plain text in a pipe, and a clear error for an unknown `--op`."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.cli import CliError, build_parser
from db.guilds import ensure_guilds
from db.members import upsert_members
from memory.core.models import Member
from memory.core.settings import load_settings
from memory.core.telemetry import json_line
from memory.telemetry import OPS, TELEMETRY_FILE

GUILD, OTHER_GUILD, ALICE, BOB = 111, 222, 7001, 7002


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _ts(minutes_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).isoformat(timespec="milliseconds")


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    events = [
        {"ts": _ts(9), "op": "remember", "outcome": "ok", "guild_id": GUILD, "user_id": ALICE},
        {"ts": _ts(8), "op": "llm_call", "outcome": "error", "guild_id": GUILD, "purpose": "x"},
        {"ts": _ts(7), "op": "reply", "outcome": "fallback", "guild_id": GUILD, "user_id": BOB},
        {"ts": _ts(6), "op": "forget", "outcome": "ok", "guild_id": OTHER_GUILD, "user_id": 5},
    ]
    with (tmp_path / TELEMETRY_FILE).open("w", encoding="utf-8") as handle:
        handle.writelines(json_line(event) + "\n" for event in events)
    return tmp_path


@pytest.fixture
async def named_db(
    monkeypatch: pytest.MonkeyPatch, database_dsn: str, db_pool: asyncpg.Pool
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_dsn)
    await ensure_guilds(db_pool, [(GUILD, "Climbers"), (OTHER_GUILD, None)])
    await upsert_members(
        db_pool,
        [
            Member(GUILD, ALICE, username="alice", nickname="Ali"),
            Member(GUILD, BOB, username="bob"),
        ],
    )


def _tail(log_dir: Path, *argv: str, out: io.StringIO | None = None) -> str:
    args = build_parser().parse_args(["telemetry", "tail", "--log-dir", str(log_dir), *argv])
    out = out if out is not None else io.StringIO()
    assert args.handler(args, load_settings(), out=out) == 0
    return out.getvalue()


def test_rows_show_guild_and_member_names(log_dir: Path, named_db: None) -> None:
    lines = _tail(log_dir).splitlines()
    remember = next(line for line in lines if " remember " in line)
    assert "Climbers" in remember and "Ali" in remember
    assert str(ALICE) not in remember and str(GUILD) not in remember
    forget = next(line for line in lines if " forget " in line)
    assert str(OTHER_GUILD) in forget  # no stored name: the id stays


def test_ids_when_asked_or_when_there_is_no_database(log_dir: Path, named_db: None) -> None:
    assert str(ALICE) in _tail(log_dir, "--ids")


def test_ids_without_a_database(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # per-user place: no database was ever created there
    remember = next(line for line in _tail(log_dir).splitlines() if " remember " in line)
    assert str(ALICE) in remember and str(GUILD) in remember


def test_guild_and_user_filters_take_names(log_dir: Path, named_db: None) -> None:
    def ops(*argv: str) -> list[str]:
        return [json.loads(line)["op"] for line in _tail(log_dir, "--json", *argv).splitlines()]

    assert ops("--guild", "Climbers") == ["remember", "llm_call", "reply"]
    assert ops("--guild", "climbers", "--user", "Ali") == ["remember"]
    assert ops("--guild", str(GUILD), "--user", "bob") == ["reply"]
    assert ops("--user", str(BOB)) == ["reply"]
    with pytest.raises(CliError, match="no guild named"):
        _tail(log_dir, "--guild", "Nobody")
    with pytest.raises(CliError, match="--user NAME needs --guild"):
        _tail(log_dir, "--user", "bob")


def test_outcome_filter(log_dir: Path) -> None:
    rows = _tail(log_dir, "--json", "--outcome", "error").splitlines()
    assert [json.loads(line)["op"] for line in rows] == ["llm_call"]
    rows = _tail(log_dir, "--json", "--outcome", "error,fallback").splitlines()
    assert [json.loads(line)["op"] for line in rows] == ["llm_call", "reply"]


def test_unknown_op_lists_the_valid_ones(log_dir: Path) -> None:
    with pytest.raises(CliError) as raised:
        _tail(log_dir, "--op", "llm_cal")
    message = str(raised.value)
    assert "unknown operation 'llm_cal'" in message
    assert all(op in message for op in OPS)
    assert _tail(log_dir, "--json", "--op", "llm").count("llm_call") == 1  # prefixes still work


def test_colour_on_a_terminal_plain_in_a_pipe(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    piped = _tail(log_dir, "--ids")
    assert "\x1b[" not in piped
    coloured = _tail(log_dir, "--ids", out=Terminal())
    error_row = next(line for line in coloured.splitlines() if "llm_call" in line)
    ok_row = next(line for line in coloured.splitlines() if " remember " in line)
    assert "\x1b[1;31m" in error_row  # bold red
    assert "\x1b[" not in ok_row
