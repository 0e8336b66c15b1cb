"""`memorybot memory show` and `memorybot summarize` against a real database with the offline
provider: the admin sees the context, its sources, sizes and costs; a second run (a new
process) is served from what the first one stored."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from db.guilds import ensure_guild
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from tests.memory.export_samples import message

GUILD = 4242
ALICE, BOB = 101, 102
NOW = datetime(2026, 3, 14, 18, 0, tzinfo=UTC)


async def _seed(db_pool: asyncpg.Pool) -> None:
    await ensure_guild(db_pool, GUILD, "Tea Club")
    await upsert_members(
        db_pool,
        [
            Member(GUILD, ALICE, username="alice", nickname="Alice"),
            Member(GUILD, BOB, username="bob", global_name="Bob"),
        ],
    )
    batch = []
    for offset in range(4):
        at = NOW - timedelta(days=offset, hours=2)
        batch += [
            ChatMessage(
                10_000 + offset * 10,
                GUILD,
                1,
                ALICE,
                f"I finally fixed my bike on day {offset}.",
                at,
            ),
            ChatMessage(
                10_001 + offset * 10,
                GUILD,
                1,
                BOB,
                f"<@{ALICE}> nice, I am baking bread for day {offset}.",
                at + timedelta(minutes=1),
                mention_ids=(ALICE,),
            ),
        ]
    await insert_messages(db_pool, batch)
    await db_pool.execute(
        "INSERT INTO user_facts (guild_id, user_id, blob) VALUES ($1, $2, $3)",
        GUILD,
        ALICE,
        "Alice is a nurse in Lyon.",
    )


def _run(argv: list[str]) -> int:
    return main(argv)


async def test_memory_show_prints_context_sources_and_costs(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    argv = ["memory", "show", "--guild", "Tea Club", "--user", "alice", "--now", NOW.isoformat()]
    assert await asyncio.to_thread(_run, argv) == 0
    first = capsys.readouterr().out
    # The guild's name was typed, so the heading names it (with the id), not the id alone.
    heading = f"Memory of Alice (id {ALICE}) in guild Tea Club (id {GUILD}), as of 2026-03-14"
    assert first.startswith(heading)
    assert "Alice is a nurse in Lyon" in first
    assert "bike" in first  # what she said made it through the summaries
    assert "Sources:" in first and "  facts" in first and "  history" in first
    assert "LLM calls: " in first and "daily_summary 4" in first
    assert "{" not in first.splitlines()[0]  # telemetry stayed off stdout

    # A second run is a new process: everything it needs was stored by the first.
    argv_json = ["memory", "show", "--guild", str(GUILD), "--user", str(ALICE), "--json"]
    assert await asyncio.to_thread(_run, [*argv_json, "--now", NOW.isoformat()]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["llm_calls"] == {} and report["total_llm_calls"] == 0
    assert report["cache_hits"]["context_store"] == 1
    assert {s["name"]: s["chars"] > 0 for s in report["sources"]} == {
        "facts": True,
        "today": True,
        "history": True,
    }
    assert report["text"] in first


async def test_memory_show_explains_unknown_members(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    argv = ["memory", "show", "--guild", str(GUILD), "--user", "nobody"]
    assert await asyncio.to_thread(_run, argv) == 1
    assert "no member named 'nobody'" in capsys.readouterr().err
    bad_now = ["memory", "show", "--guild", str(GUILD), "--user", "bob", "--now", "soon"]
    assert await asyncio.to_thread(_run, bad_now) == 1
    assert "--now" in capsys.readouterr().err


async def test_summarize_forces_one_day(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    day = (NOW - timedelta(days=1)).date().isoformat()
    argv = ["summarize", "--guild", str(GUILD), "--date", day]
    assert await asyncio.to_thread(_run, argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Guild {GUILD}, {day}: 2 messages, summarised (forced)")
    assert f"- Alice (id {ALICE}): " in out and f"- Bob (id {BOB}): " in out
    stored = await db_pool.fetchval(
        "SELECT count(*) FROM daily_summaries WHERE guild_id = $1 AND day = $2",
        GUILD,
        datetime.fromisoformat(day).date(),
    )
    assert stored == 2

    assert await asyncio.to_thread(_run, [*argv, "--if-changed"]) == 0
    assert "already up to date" in capsys.readouterr().out
    assert await asyncio.to_thread(_run, ["summarize", "--guild", str(GUILD), "--date", "x"]) == 1


async def test_summarize_refuses_a_day_in_the_future_or_before_anything_stored(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37.8: one line naming what works, exit 1, nothing stored."""
    await _seed(db_pool)
    for day, said in (("1900-01-01", "before anything stored"), ("2099-01-01", "in the future")):
        argv = ["summarize", "--guild", str(GUILD), "--date", day]
        assert await asyncio.to_thread(_run, argv) == 1
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err
    first = (NOW - timedelta(days=3, hours=2)).date().isoformat()
    await asyncio.to_thread(_run, ["summarize", "--guild", str(GUILD), "--date", "1900-01-01"])
    assert f"use a day from {first}" in capsys.readouterr().err
    assert await db_pool.fetchval("SELECT count(*) FROM daily_summaries") == 0


async def test_import_then_memory_show_end_to_end(
    cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An admin imports a DiscordChatExporter export and asks what the bot knows, as of the
    export's last day: the offline provider summarises the days and merges them."""
    alice = {"id": "800000000000000011", "name": "alice", "nickname": "Alice W", "isBot": False}
    bob = {"id": "800000000000000012", "name": "bob", "nickname": "Bobby", "isBot": False}
    messages = []
    for day in (1, 2, 3):
        base = 900000000000000000 + day * 100
        messages += [
            message(
                base + 1,
                f"Training for the marathon, week {day}.",
                author=alice,
                timestamp=f"2025-04-0{day}T09:00:00.000+02:00",
            ),
            message(
                base + 2,
                f"<@{alice['id']}> good luck with the run {day}!",
                author=bob,
                kind="Reply",
                timestamp=f"2025-04-0{day}T09:05:00.000+02:00",
                reference={"messageId": str(base + 1)},
                mentions=[alice],
            ),
        ]
    export = {
        "guild": {"id": "800000000000000001", "name": "Runners"},
        "channel": {"id": "800000000000000002", "type": "GuildTextChat", "name": "general"},
        "messages": messages,
        "messageCount": len(messages),
    }
    path = cli_env / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")

    assert await asyncio.to_thread(_run, ["import", str(path), "--no-progress"]) == 0
    capsys.readouterr()
    argv = ["memory", "show", "--guild", "Runners", "--user", "Alice W"]
    assert await asyncio.to_thread(_run, [*argv, "--now", "2025-04-03T20:00:00Z"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Memory of Alice W (id 800000000000000011)")
    assert "as of 2025-04-03" in out
    assert "marathon, week 3" in out  # today
    assert "marathon, week 1" in out  # the history of the days before
    # The import already read and closed the imported days: showing reads no chat again.
    llm_line = next(line for line in out.splitlines() if line.startswith("LLM calls:"))
    assert "daily_summary" not in llm_line
    assert "Fallback" not in out


async def test_memory_show_says_it_may_call_the_llm_and_no_build_does_not(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    base = ["memory", "show", "--guild", "Tea Club", "--user", "alice", "--now", NOW.isoformat()]
    assert await asyncio.to_thread(_run, [*base, "--no-build", "--json"]) == 0
    captured = capsys.readouterr()
    stored = json.loads(captured.out)
    assert stored["total_llm_calls"] == 0 and stored["fallback"] is not None
    assert "Alice is a nurse in Lyon" in stored["text"]  # the facts are stored
    assert "may call the LLM" not in captured.err
    assert await db_pool.fetchval("SELECT count(*) FROM daily_summaries") == 0  # nothing built

    assert await asyncio.to_thread(_run, base) == 0
    captured = capsys.readouterr()
    assert "may call the LLM (merge: offline; daily_summary: offline)" in captured.err
    assert "--no-build shows only what is stored" in captured.err
    assert await db_pool.fetchval("SELECT count(*) FROM daily_summaries") > 0
