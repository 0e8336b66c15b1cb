"""Opt-out edges from the command line: a member who opted out is found again by a name they
had (or the error says how to find their id), their export is a document saying so, and an
objection can be recorded before the database exists."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from tests.support import DEFAULT_TIME

GUILD, FRANK, GINA = 6160, 411111111111111111, 422222222222222222


async def _seed(db_pool: asyncpg.Pool) -> None:
    await db_pool.execute("INSERT INTO guilds (guild_id, name) VALUES ($1, 'Allotment')", GUILD)
    await upsert_members(
        db_pool,
        [
            Member(GUILD, FRANK, username="frank_b", nickname="Frank"),
            Member(GUILD, GINA, username="gina"),
        ],
    )
    await insert_messages(
        db_pool,
        [
            ChatMessage(70001, GUILD, 9, FRANK, "my tomatoes are finally red", DEFAULT_TIME),
            ChatMessage(70002, GUILD, 9, GINA, "nice one frank", DEFAULT_TIME),
        ],
    )


async def _cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def _state(db_pool: asyncpg.Pool) -> str | None:
    value: str | None = await db_pool.fetchval(
        "SELECT state FROM member_consent WHERE guild_id = $1 AND user_id = $2", GUILD, FRANK
    )
    return value


async def test_optin_finds_an_opted_out_member_by_the_name_they_had(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    assert await _cli("user", "optout", "--guild", "Allotment", "--user", "frank", "--yes") == 0
    assert await _state(db_pool) == "out"
    assert await db_pool.fetchval("SELECT count(*) FROM members WHERE user_id = $1", FRANK) == 0
    # What is kept of the names says nothing by itself.
    keys = await db_pool.fetchval("SELECT name_keys::text FROM member_consent")
    assert "frank" not in keys.lower() and "Frank" not in keys
    capsys.readouterr()

    for name in ("Frank", "frank_b"):  # any name they answered to
        assert await _cli("user", "optin", "--guild", "Allotment", "--user", name) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"opted in {name} (id {FRANK})"), out
        assert await _state(db_pool) == "in"


async def test_an_unknown_name_says_how_to_find_the_id(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    assert await _cli("user", "optin", "--guild", str(GUILD), "--user", "nobody") == 1
    err = capsys.readouterr().err
    assert "no member named 'nobody'" in err and "Copy User ID" in err
    assert len(err.strip().splitlines()) == 1


async def test_export_of_an_opted_out_member_with_nothing_held(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    assert await _cli("user", "optout", "--guild", str(GUILD), "--user", str(FRANK), "--yes") == 0
    capsys.readouterr()
    for who in (str(FRANK), "Frank"):
        assert await _cli("user", "export", "--guild", str(GUILD), "--user", who) == 0
        document = json.loads(capsys.readouterr().out)
        assert document["opted_out"] is True
        assert document["user_id"] == FRANK and document["messages"] == []
        assert document["format"].startswith("memorybot.member-export")


@pytest.fixture
def no_database_yet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server_tmp_path: Path) -> Path:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATA_DIR", str(server_tmp_path / "data"))
    monkeypatch.setenv("LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    monkeypatch.chdir(tmp_path)
    return server_tmp_path / "data"


def test_optout_before_the_database_exists_creates_it(
    no_database_yet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["user", "optout", "--guild", "987654321", "--user", "123456789", "--yes"]
    assert main(argv) == 0, capsys.readouterr().err
    assert "opted out user 123456789" in capsys.readouterr().out
    assert (no_database_yet / "pg").is_dir()
    # The objection is kept: the member's export now says so.
    export = ["user", "export", "--guild", "987654321", "--user", "123456789"]
    assert main(export) == 0
    assert json.loads(capsys.readouterr().out)["opted_out"] is True
