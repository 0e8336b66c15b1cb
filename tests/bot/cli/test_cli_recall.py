"""`memorybot recall`: hits with weekday, author, channel, link and the lines around a short
answer; a 100,000-character question is answered, with one line saying what was read."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from bot.cli import build_parser
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.core.settings import load_settings

GUILD, ALICE, BOB = 4343, 311111111111111111, 322222222222222222
AT = datetime(2026, 10, 3, 15, 30, tzinfo=UTC)  # a Saturday


async def _seed(db_pool: asyncpg.Pool) -> None:
    await db_pool.execute("INSERT INTO guilds (guild_id, name) VALUES ($1, 'Tea Club')", GUILD)
    await upsert_members(
        db_pool, [Member(GUILD, ALICE, username="alice"), Member(GUILD, BOB, username="bob")]
    )
    await insert_messages(
        db_pool,
        [
            ChatMessage(9101, GUILD, 77, BOB, "where did you hike yesterday?", AT),
            ChatMessage(9102, GUILD, 77, ALICE, "the old lighthouse", AT.replace(minute=31)),
        ],
    )


async def test_a_short_answer_is_printed_with_its_question(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    args = build_parser().parse_args(["recall", "--guild", str(GUILD), "lighthouse"])
    assert await args.handler(args, load_settings()) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("  before Sat 3 October 2026 15:30  bob  #77  where did you hike")
    assert "[yesterday = Fri 2 October 2026]" in out[0]
    assert out[1] == (
        "1.       Sat 3 October 2026 15:31  alice  #77  the old lighthouse"
        f"  https://discord.com/channels/{GUILD}/77/9102"
    )


async def test_an_exchange_is_shown_once_with_its_lines_labelled(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37.3: a hit shown as a better hit's context is not shown again as a hit, nor
    the better hit again as its context; every line says what it is."""
    await _seed(db_pool)
    said = [
        (9201, ALICE, "climbing trip on Saturday, who has gear?"),
        (9202, BOB, "I can bring the ropes on Saturday"),
        (9203, ALICE, "great, and carol brings the harnesses"),
    ]
    await insert_messages(
        db_pool,
        [
            ChatMessage(mid, GUILD, 78, author, text, AT.replace(hour=18, minute=n))
            for n, (mid, author, text) in enumerate(said)
        ],
    )
    args = build_parser().parse_args(
        ["recall", "--guild", str(GUILD), "who is bringing the ropes on Saturday?"]
    )
    assert await args.handler(args, load_settings()) == 0
    out = capsys.readouterr().out.splitlines()
    for _, _, text in said:
        assert sum(text in line for line in out) == 1, out
    labels = [line.split()[0] for line in out]
    assert labels[0] in ("1.", "before") and "1." in labels
    assert set(labels) <= {"1.", "2.", "3.", "before", "after"}, out


async def test_a_hundred_thousand_character_question(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    question = ("lighthouse " + "x" * 100_000)[:100_000]
    args = build_parser().parse_args(["recall", "--guild", str(GUILD), question])
    assert await args.handler(args, load_settings()) == 0
    captured = capsys.readouterr()
    assert captured.err.count("a long question: searched its first") == 1
    assert len([line for line in captured.err.splitlines() if "long question" in line]) == 1
    assert "the old lighthouse" in captured.out
