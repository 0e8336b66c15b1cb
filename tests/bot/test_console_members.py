"""Issue 42.2: the console speaks as the members a guild has. `--as alice` (the README's own
command after the sample import), `--as <id>` and a `bob: text` line are the imported members,
and a `/whois` of a name nobody has creates nobody."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "sample-export"
GUILD = 800000000000000001
ALICE, BOB, CAROL = 800000000000000101, 800000000000000102, 800000000000000103


async def _console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, speaker: str, lines: list[str]
) -> None:
    script = tmp_path / f"script-{speaker}.txt"
    script.write_text("\n".join([*lines, "/quit"]) + "\n", encoding="utf-8")
    with script.open(encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        argv = ["console", "--guild", "Sample Hikers", "--as", speaker]
        assert await asyncio.to_thread(main, argv) == 0


@pytest.fixture
async def sample(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RETENTION_DAYS", "400")
    monkeypatch.setenv("MEMORYBOT_NOW", "2026-05-20T12:00:00+00:00")
    argv = ["import", str(SAMPLE), "--no-progress"]
    assert await asyncio.to_thread(main, argv) == 0
    return cli_env


async def _members(db_pool: asyncpg.Pool) -> dict[int, str]:
    rows = await db_pool.fetch("SELECT user_id, username FROM members WHERE guild_id = $1", GUILD)
    return {row["user_id"]: row["username"] for row in rows}


@pytest.mark.parametrize("speaker", ["alice", "carol", str(BOB)])
async def test_as_names_the_imported_member(
    sample: Path,
    db_pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    speaker: str,
) -> None:
    before = await _members(db_pool)
    assert set(before) == {ALICE, BOB, CAROL}
    capsys.readouterr()
    await _console(sample, monkeypatch, speaker, ["hello all, back from the hills"])
    out = capsys.readouterr().out
    assert await _members(db_pool) == before, "no second member was created"
    said = await db_pool.fetchval(
        "SELECT author_id FROM messages WHERE guild_id = $1 AND content LIKE 'hello all%'", GUILD
    )
    assert said in (ALICE, BOB, CAROL)
    assert said == {"alice": ALICE, "carol": CAROL}.get(speaker, BOB)
    assert f"{BOB}>" not in out, "the transcript names the speaker, not an id"


async def test_lines_and_whois_create_nobody(
    sample: Path,
    db_pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = await _members(db_pool)
    huge = "99999999999999999999999"  # past any id: no member, and no database error
    lines = ["bob: who is up for the lighthouse loop?", "/whois nobodyhere", f"/whois {huge}"]
    await _console(sample, monkeypatch, "alice", [*lines, "Bot what do you know about alice?"])
    out = capsys.readouterr().out
    assert await _members(db_pool) == before
    assert "no member named nobodyhere" in out and f"no member named {huge}" in out
    assert "which" not in out.lower().split("what do you know about alice?", 1)[1]
    author = await db_pool.fetchval(
        "SELECT author_id FROM messages WHERE content LIKE 'who is up%' AND guild_id = $1", GUILD
    )
    assert author == BOB
    capsys.readouterr()
    argv = ["memory", "show", "--guild", "Sample Hikers", "--user", "alice"]
    # It used to refuse: "matches 2 members".
    assert await asyncio.to_thread(main, argv) == 0, capsys.readouterr().err
