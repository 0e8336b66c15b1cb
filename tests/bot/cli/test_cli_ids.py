"""Ids past 64 bits and a bogus log level: one error line and a non-zero exit from every
command that takes them, never a database traceback (issue 42.3)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from db.guilds import ensure_guild
from db.members import upsert_members
from memory.core.models import Member

GUILD, ALICE = 800000000000000001, 800000000000000101
HUGE = "99999999999999999999999"
COMMANDS = [
    ["memory", "show", "--guild", str(GUILD), "--user", HUGE],
    ["user", "export", "--guild", str(GUILD), "--user", HUGE],
    ["recall", "--guild", str(GUILD), "--user", HUGE, "hike"],
    ["user", "optout", "--guild", str(GUILD), "--user", HUGE, "--yes"],
    ["user", "optout", "--guild", str(GUILD), "--user", f"<@{HUGE}>", "--yes"],
    ["episodes", "--guild", str(GUILD), "--channel", HUGE],
    ["usage", "--guild", HUGE],
    ["memory", "show", "--guild", HUGE, "--user", "alice"],
    ["summarize", "--guild", HUGE, "--date", "2026-03-10"],
    ["--log-level", "bogus", "usage"],
]


@pytest.mark.parametrize(
    "argv", COMMANDS, ids=[" ".join(a[:2]) + f" {i}" for i, a in enumerate(COMMANDS)]
)
async def test_one_line_and_a_non_zero_exit(
    argv: list[str], cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await ensure_guild(db_pool, GUILD, "Sample Hikers")
    await upsert_members(db_pool, [Member(GUILD, ALICE, username="alice")])
    code = await asyncio.to_thread(main, argv)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code != 0
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("memorybot: ") and "Traceback" not in captured.err
    if "bogus" in argv:
        assert "--log-level" in lines[0] and "bogus" in lines[0], lines[0]
    else:
        option = next(argv[i - 1] for i, arg in enumerate(argv) if HUGE in arg)
        assert option in lines[0] and HUGE in lines[0], lines[0]
    # Nothing was recorded about the id that cannot be one.
    assert await db_pool.fetchval("SELECT count(*) FROM member_consent") == 0
