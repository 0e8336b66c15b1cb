"""The admin's `user` and `retention` commands as typed from the README (issue 42.5, 42.6):
`purge-unconsented` refuses a guild that stores everyone unless forced and names who it will
delete before asking; an id that cannot be a member is refused; lines name the guild as it was
typed; `optin --yes` is accepted; `retention run --days` does not speak of RETENTION_DAYS."""

from __future__ import annotations

import asyncio
import io
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from db.guilds import ensure_guild
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member

GUILD, CHANNEL = 800000000000000001, 800000000000000050
ALICE, BOB = 800000000000000101, 800000000000000102
AT = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


async def _seed(db_pool: asyncpg.Pool, storage: str | None = None) -> None:
    await ensure_guild(db_pool, GUILD, "Sample Hikers")
    if storage is not None:
        await db_pool.execute(
            "UPDATE guilds SET settings = jsonb_build_object('storage', $2::text)"
            " WHERE guild_id = $1",
            GUILD,
            storage,
        )
    await upsert_members(
        db_pool,
        [Member(GUILD, ALICE, username="alice"), Member(GUILD, BOB, username="bob")],
    )
    await insert_messages(
        db_pool,
        [
            ChatMessage(700_001, GUILD, CHANNEL, ALICE, "the lake trail is open again", AT),
            ChatMessage(700_002, GUILD, CHANNEL, BOB, "great, I will bring the stove", AT),
        ],
    )


async def _cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def _held(db_pool: asyncpg.Pool) -> set[int]:
    rows = await db_pool.fetch("SELECT user_id FROM members WHERE guild_id = $1", GUILD)
    return {row["user_id"] for row in rows}


async def test_purge_unconsented_refuses_a_guild_that_stores_everyone(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    argv = ("user", "purge-unconsented", "--guild", "Sample Hikers", "--yes")
    assert await _cli(*argv) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "stores everyone" in err and "--force" in err and "Sample Hikers" in err
    assert await _held(db_pool) == {ALICE, BOB}  # nothing was deleted


async def test_purge_unconsented_names_who_goes_before_asking(
    cli_env: Path,
    db_pool: asyncpg.Pool,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _seed(db_pool)
    monkeypatch.setattr("sys.stdin", io.StringIO("no\n"))
    argv = ("user", "purge-unconsented", "--guild", "Sample Hikers", "--force")
    assert await _cli(*argv) == 1
    prompt = capsys.readouterr().err
    assert f"alice (id {ALICE})" in prompt and f"bob (id {BOB})" in prompt, prompt
    assert await _held(db_pool) == {ALICE, BOB}


async def test_purge_unconsented_in_a_consent_first_guild_keeps_who_opted_in(
    cli_env: Path,
    db_pool: asyncpg.Pool,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _seed(db_pool, storage="opted-in")
    assert await _cli("user", "optin", "--guild", "Sample Hikers", "--user", "alice") == 0
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("yes\n"))
    assert await _cli("user", "purge-unconsented", "--guild", "Sample Hikers") == 0
    captured = capsys.readouterr()
    assert f"bob (id {BOB})" in captured.err and "alice" not in captured.err
    assert "purged 1 member of guild Sample Hikers" in captured.out
    assert await _held(db_pool) == {ALICE}


@pytest.mark.parametrize("user", ["0", "<@0>", "42"])
async def test_optout_of_an_id_no_member_can_have_is_refused(
    user: str, cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    argv = ("user", "optout", "--guild", "Sample Hikers", "--user", user, "--yes")
    assert await _cli(*argv) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot be a Discord user id" in err, err
    assert "guild Sample Hikers" in err
    assert await db_pool.fetchval("SELECT count(*) FROM member_consent") == 0


async def test_lines_name_the_guild_as_typed_and_optin_takes_yes(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    where = ("--guild", "Sample Hikers", "--user", "alice")
    assert await _cli("user", "optout", *where, "--yes") == 0
    out = capsys.readouterr().out
    assert "guild Sample Hikers" in out and f"guild {GUILD}" not in out, out
    assert await _cli("user", "optin", *where, "--yes") == 0
    out = capsys.readouterr().out
    assert out.startswith("opted in alice") and "guild Sample Hikers" in out, out
    assert await _cli("user", "purge", "--guild", "Sample Hikers", "--user", "bob", "--yes") == 0
    out = capsys.readouterr().out
    assert "guild Sample Hikers" in out and f"guild {GUILD}" not in out, out
    # Typed as an id, the id is what the lines say.
    assert await _cli("user", "optout", "--guild", str(GUILD), "--user", str(ALICE), "--yes") == 0
    assert f"guild {GUILD}" in capsys.readouterr().out


TYPED = ("--guild", "Sample Hikers", "--user", "nobody")


@pytest.mark.parametrize(
    "argv",
    [("memory", "show", *TYPED), ("recall", *TYPED, "hike"), ("user", "export", *TYPED)],
)
async def test_error_lines_name_the_guild_as_typed(
    argv: tuple[str, ...], cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    assert await _cli(*argv) == 1
    err = capsys.readouterr().err
    assert "in guild Sample Hikers" in err and str(GUILD) not in err, err


async def test_retention_days_given_does_not_speak_of_retention_days(
    cli_env: Path,
    db_pool: asyncpg.Pool,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    await _seed(db_pool)
    assert await _cli("retention", "run", "--dry-run", "--days", "3") == 0
    captured = capsys.readouterr()
    assert "RETENTION_DAYS" not in captured.err + caplog.text
    assert "--days 3" in captured.err  # what was typed is what the note is about
    assert captured.out.startswith("retention: would delete")
