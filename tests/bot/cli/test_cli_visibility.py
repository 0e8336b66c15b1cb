"""`memorybot settings --channel C --visibility ...` and `--memory-sources`, and the admin
`recall` that searches every channel, against a real database with the offline provider.

An imported channel (unknown to a live bot) counts as public until an admin marks it: then the
days holding its messages are summarised again without it, and `--memory-sources all` brings
it back into shared memory."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.cli import CliError, build_parser, main
from db.guilds import ensure_guild
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.core.settings import load_settings

GUILD = 4343
ALICE = 201
STAFF, LOBBY = 77, 78
DAY = (datetime.now(UTC) - timedelta(days=2)).replace(hour=12, minute=0)


async def _seed(db_pool: asyncpg.Pool) -> None:
    await ensure_guild(db_pool, GUILD, "Bakers")
    await upsert_members(db_pool, [Member(GUILD, ALICE, username="alice")])
    await insert_messages(
        db_pool,
        [
            ChatMessage(5001, GUILD, STAFF, ALICE, "I am quitting the bakery next month.", DAY),
            ChatMessage(
                5002, GUILD, LOBBY, ALICE, "I baked rye bread today.", DAY + timedelta(minutes=5)
            ),
        ],
    )


def _run(argv: list[str]) -> int:
    return main(argv)


async def _summary(db_pool: asyncpg.Pool) -> str:
    value: str = await db_pool.fetchval(
        "SELECT summary FROM daily_summaries WHERE guild_id = $1 AND day = $2 AND user_id = $3",
        GUILD,
        DAY.date(),
        ALICE,
    )
    return value


async def _stale(db_pool: asyncpg.Pool) -> bool:
    value: bool = await db_pool.fetchval(
        "SELECT stale FROM summary_days WHERE guild_id = $1 AND day = $2", GUILD, DAY.date()
    )
    return value


async def test_marking_an_imported_channel_restricted_rebuilds_its_days(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    summarize = ["summarize", "--guild", str(GUILD), "--date", DAY.date().isoformat()]
    assert await asyncio.to_thread(_run, summarize) == 0
    assert "quitting" in await _summary(db_pool), "unknown channels count as public"
    capsys.readouterr()

    mark = ["settings", "--guild", "Bakers", "--channel", str(STAFF), "--visibility", "restricted"]
    assert await asyncio.to_thread(_run, mark) == 0
    out = capsys.readouterr().out
    assert f"Channel #{STAFF} marked restricted (its days will be summarised again)" in out
    assert f"Restricted channels (not in shared memory): #{STAFF}" in out
    assert "Summarised again now: 1 day" in out  # by this command, not a worker later
    assert not await _stale(db_pool)
    summary = await _summary(db_pool)
    assert "quitting" not in summary and "rye bread" in summary

    # The admin's recall still searches every channel, and says so.
    assert await asyncio.to_thread(_run, ["recall", "--guild", str(GUILD), "quitting"]) == 0
    found = capsys.readouterr()
    assert "quitting the bakery" in found.out
    assert "every channel, including channels most members cannot read" in found.err

    # memory_sources=all: every channel feeds shared memory again.
    sources = ["settings", "--guild", str(GUILD), "--memory-sources", "all"]
    assert await asyncio.to_thread(_run, sources) == 0
    assert "built from: every stored channel" in capsys.readouterr().out
    assert await _stale(db_pool)
    assert await asyncio.to_thread(_run, [*summarize, "--if-changed"]) == 0
    assert "quitting" in await _summary(db_pool)

    # Back to public channels only: the restricted channel's words leave at once.
    back = ["settings", "--guild", str(GUILD), "--memory-sources", "public"]
    assert await asyncio.to_thread(_run, back) == 0
    assert "quitting" not in (await _summary(db_pool) or "")
    assert await _stale(db_pool)


async def test_bad_visibility_arguments_are_one_clear_error(
    cli_env: Path, db_pool: asyncpg.Pool
) -> None:
    await _seed(db_pool)
    settings = load_settings()
    alone = build_parser().parse_args(["settings", "--guild", str(GUILD), "--channel", "77"])
    with pytest.raises(CliError, match="--channel and --visibility go together"):
        await alone.handler(alone, settings)
    bad = build_parser().parse_args(
        ["settings", "--guild", str(GUILD), "--channel", "staff", "--visibility", "public"]
    )
    with pytest.raises(CliError, match="--channel: no channel named 'staff'"):
        await bad.handler(bad, settings)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["settings", "--guild", "1", "--memory-sources", "some"])


async def _learned(db_pool: asyncpg.Pool) -> list[str]:
    rows = await db_pool.fetch(
        "SELECT statement FROM learned_facts WHERE guild_id = $1 AND current", GUILD
    )
    return [row["statement"] for row in rows]


async def test_a_visibility_round_trip_brings_learned_facts_back_at_once(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37.2: restricted then public again, the facts learned from the channel are back
    when the command returns, not after a worker ran."""
    await _seed(db_pool)
    await insert_messages(
        db_pool, [ChatMessage(5003, GUILD, STAFF, ALICE, "I live in Porto.", DAY.replace(hour=13))]
    )
    summarize = ["summarize", "--guild", str(GUILD), "--date", DAY.date().isoformat()]
    assert await asyncio.to_thread(_run, summarize) == 0
    assert any("Porto" in fact for fact in await _learned(db_pool))
    mark = ["settings", "--guild", "Bakers", "--channel", str(STAFF), "--visibility"]
    assert await asyncio.to_thread(_run, [*mark, "restricted"]) == 0
    assert not any("Porto" in fact for fact in await _learned(db_pool))
    assert await asyncio.to_thread(_run, [*mark, "public"]) == 0
    assert "Summarised again now: 1 day" in capsys.readouterr().out
    assert any("Porto" in fact for fact in await _learned(db_pool))
