"""Memory that lasts, through the command line on a real PostgreSQL: a 40-day history is
imported, what a member said once in week 1 is in their memory on day 40; a newer home
supersedes the older one; a forgotten learned fact stays gone through later days."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.cli import main
from db.learned import all_facts

SAM: dict[str, Any] = {"id": "810000000000000011", "name": "sam", "nickname": "Sam", "isBot": False}
BOB: dict[str, Any] = {"id": "810000000000000012", "name": "bob", "nickname": "Bob", "isBot": False}
GUILD = 810000000000000001
START = datetime(2025, 1, 1, 10, tzinfo=UTC)


def _message(n: int, author: dict[str, Any], text: str, at: datetime) -> dict[str, Any]:
    return {
        "id": str(910000000000000000 + n),
        "type": "Default",
        "timestamp": at.isoformat(),
        "content": text,
        "author": author,
        "mentions": [],
        "attachments": [],
        "embeds": [],
        "stickers": [],
    }


def _history() -> list[dict[str, Any]]:
    said = {
        1: (SAM, "hi all! I'm allergic to peanuts, so no satay for me"),
        3: (SAM, "I grew up in Porto actually"),
        5: (SAM, "I live in Porto these days"),
        30: (SAM, "big news: I just moved to Madrid!"),
    }
    messages = []
    for day in range(40):
        at = START + timedelta(days=day)
        author, text = said.get(day, (BOB, f"day {day}: the weather is fine, nothing new"))
        messages.append(_message(day * 2, author, text, at))
        messages.append(
            _message(
                day * 2 + 1, BOB, f"chatting about football on day {day}", at + timedelta(hours=1)
            )
        )
    return messages


def _run(argv: list[str]) -> int:
    return main(argv)


async def test_a_fact_said_once_in_week_one_is_remembered_on_day_forty(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    export = {
        "guild": {"id": str(GUILD), "name": "Climbers"},
        "channel": {"id": "810000000000000002", "type": "GuildTextChat", "name": "general"},
        "messages": _history(),
    }
    path = cli_env / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    assert await asyncio.to_thread(_run, ["import", str(path), "--no-progress"]) == 0
    assert "closed 40 days of Climbers" in capsys.readouterr().out

    day40 = (START + timedelta(days=39, hours=12)).isoformat()
    show = ["memory", "show", "--guild", "Climbers", "--user", "Sam", "--now", day40]
    assert await asyncio.to_thread(_run, show) == 0
    out = capsys.readouterr().out
    context = out.split("Sources:")[0]
    assert "allergic to peanuts" in context  # said once, 39 days earlier
    assert "lives in Madrid" in context and "lives in Porto" not in context  # superseded
    facts = await all_facts(db_pool, GUILD, int(SAM["id"]))
    homes = [(f.statement, f.current) for f in facts if f.subject == "home"]
    assert ("Sam lives in Porto.", False) in homes and ("Sam lives in Madrid.", True) in homes
    allergy = next(f for f in facts if "peanuts" in f.statement)
    assert allergy.first_seen.isoformat() == "2025-01-02" and allergy.said_by == int(SAM["id"])
    assert allergy.message_ids == [910000000000000002]


async def test_a_forgotten_learned_fact_stays_gone(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    export = {
        "guild": {"id": str(GUILD), "name": "Climbers"},
        "channel": {"id": "810000000000000002", "type": "GuildTextChat", "name": "general"},
        "messages": _history()[:20],
    }
    path = cli_env / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    assert await asyncio.to_thread(_run, ["import", str(path), "--no-progress"]) == 0
    sam = int(SAM["id"])
    assert any("peanuts" in f.statement for f in await all_facts(db_pool, GUILD, sam))

    from memory.core.clock import FixedClock
    from memory.core.models import Member
    from memory.core.settings import load_settings
    from memory.wiring import open_memory

    async with open_memory(load_settings(), clock=FixedClock(START + timedelta(days=12))) as memory:
        member = Member(GUILD, sam, username="sam", nickname="Sam")
        change = await memory.facts.forget(
            GUILD, member, "Sam is allergic to peanuts", actor_id=sam
        )
        assert change.found  # it was only learned, not told, and it is gone
        assert not any("peanuts" in f.statement for f in await all_facts(db_pool, GUILD, sam))
        # The same day read again (an edit, say): the statement is not learned back.
        await memory.manager.summarize_day(GUILD, (START + timedelta(days=1)).date(), force=True)
        assert not any("peanuts" in f.statement for f in await all_facts(db_pool, GUILD, sam))
        text = (await memory.manager.wait_for_context(GUILD, sam)).text or ""
        assert "peanuts" not in text
