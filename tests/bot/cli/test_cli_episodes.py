"""`memorybot episodes`, `memorybot digest` (printed, never posted) and the digest settings."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from db.guilds import ensure_channel_names, ensure_guild
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member

GUILD, GENERAL, RANDOM = 4_100, 41, 42
ALICE, BOB = 4_101, 4_102
DAY = datetime(2026, 3, 12, 9, tzinfo=UTC)

TRIP = [
    "planning the camping trip to the lake next weekend",
    "the lake trip needs tents and a camping stove",
    "should we rent a canoe at the lake?",
    "let's book the campsite by the lake tomorrow",
]


async def _seed(db_pool: asyncpg.Pool) -> None:
    await ensure_guild(db_pool, GUILD, "Tea Club")
    await upsert_members(
        db_pool,
        [Member(GUILD, ALICE, username="alice"), Member(GUILD, BOB, username="bob")],
    )
    rows = [
        ChatMessage(
            9_000 + i, GUILD, GENERAL, (ALICE, BOB)[i % 2], text, DAY + timedelta(minutes=i)
        )
        for i, text in enumerate(TRIP)
    ]
    rows.append(ChatMessage(9_100, GUILD, RANDOM, BOB, "cat pictures anyone", DAY))
    rows.append(ChatMessage(9_101, GUILD, RANDOM, ALICE, "here is my cat", DAY))
    await insert_messages(db_pool, rows)


def _run(argv: list[str]) -> int:
    return main(argv)


async def test_episodes_lists_a_channels_day_and_digest_prints_it(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    assert (
        await asyncio.to_thread(_run, ["digest", "--guild", "Tea Club", "--day", "2026-03-12"]) == 0
    )
    digest = capsys.readouterr().out
    assert "**What happened on Thursday, March 12**" in digest
    assert f"#{GENERAL} **planning the camping trip" in digest and "(alice, bob)" in digest
    assert f"https://discord.com/channels/{GUILD}/{GENERAL}/9000" in digest
    assert "let's book the campsite" in digest  # an open loop: a plan made
    assert len(digest) <= 1_500
    assert await db_pool.fetchval("SELECT count(*) FROM episode_digests") == 0  # not posted

    argv = ["episodes", "--guild", str(GUILD), "--channel", str(GENERAL), "--day", "2026-03-12"]
    assert await asyncio.to_thread(_run, argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith(f"2026-03-12 09:00–09:03 #{GENERAL} [")
    assert "planning the camping trip" in out[0] and "(4 msgs)" in out[0]

    assert (
        await asyncio.to_thread(_run, ["episodes", "--guild", str(GUILD), "--day", "2026-03-01"])
        == 1
    )
    assert "no episodes" in capsys.readouterr().err
    assert (
        await asyncio.to_thread(_run, ["digest", "--guild", str(GUILD), "--day", "2026-03-01"]) == 1
    )
    assert "nothing to say about 2026-03-01" in capsys.readouterr().err


async def test_episodes_take_a_channel_by_name_and_show_channel_names(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    await ensure_channel_names(db_pool, [(GUILD, GENERAL, "general"), (GUILD, RANDOM, "random")])

    argv = ["episodes", "--guild", "Tea Club", "--channel", "#general", "--day", "2026-03-12"]
    assert await asyncio.to_thread(_run, argv) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert " #general [" in line and "planning the camping trip" in line
    # Issue 37.7: the digest and the settings name channels too, and take names.
    digest = ["digest", "--guild", "Tea Club", "--day", "2026-03-12"]
    assert await asyncio.to_thread(_run, digest) == 0
    shown = capsys.readouterr().out
    assert "#general **planning the camping trip" in shown and "<#" not in shown
    on = [
        "settings",
        "--guild",
        "Tea Club",
        "--digest-channel",
        "#general",
        "--digest-time",
        "8:00",
    ]
    assert await asyncio.to_thread(_run, on) == 0
    assert "Daily digest: #general at 08:00" in capsys.readouterr().out

    unknown = ["episodes", "--guild", "Tea Club", "--channel", "nowhere"]
    assert await asyncio.to_thread(_run, unknown) != 0
    assert "no channel named 'nowhere'" in capsys.readouterr().err


async def test_settings_turn_the_digest_on_and_off(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    on = [
        "settings",
        "--guild",
        str(GUILD),
        "--digest-channel",
        str(GENERAL),
        "--digest-time",
        "8:00",
    ]
    assert await asyncio.to_thread(_run, on) == 0
    assert f"Daily digest: #{GENERAL} at 08:00" in capsys.readouterr().out  # no name stored
    unknown = [
        "settings",
        "--guild",
        str(GUILD),
        "--digest-channel",
        "999",
        "--digest-time",
        "8:00",
    ]
    assert await asyncio.to_thread(_run, unknown) == 1
    assert "--digest-channel: no channel 999 is known in this guild" in capsys.readouterr().err
    bad = ["settings", "--guild", str(GUILD), "--digest-channel", "41", "--digest-time", "25:00"]
    assert await asyncio.to_thread(_run, bad) == 1
    assert "'25:00' is not a time of day; use HH:MM" in capsys.readouterr().err
    alone = ["settings", "--guild", str(GUILD), "--digest-time", "08:00"]
    assert await asyncio.to_thread(_run, alone) == 1
    assert "--digest-channel and --digest-time go together" in capsys.readouterr().err
    assert await asyncio.to_thread(_run, ["settings", "--guild", str(GUILD), "--digest-off"]) == 0
    assert "Daily digest: off" in capsys.readouterr().out
